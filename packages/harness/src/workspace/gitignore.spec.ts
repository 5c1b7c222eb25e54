// GitIgnore: which workspace paths the file searches skip (nested .gitignore files, ignored
// folders, negations, .git/), and that a hostile .gitignore (a named pipe, a link, a huge file)
// neither hangs nor leaks rules from outside the workspace.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../__tests__/helpers.js';
import { sparseFile } from '../__tests__/probes.js';
import { GitIgnore } from './gitignore.js';

describe('GitIgnore', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  const write = (path: string, text: string): void => {
    mkdirSync(join(dir.path, path, '..'), { recursive: true });
    writeFileSync(join(dir.path, path), text);
  };

  it('always ignores .git/ and what is in it, even without a .gitignore', async () => {
    const rules = new GitIgnore(dir.path);
    expect(await rules.ignores('.git/')).toBe(true);
    expect(await rules.ignores('.git/config')).toBe(true);
    expect(await rules.ignores('src/a.ts')).toBe(false);
    expect(await rules.ignores('.gitignore')).toBe(false);
  });

  it('applies the root rules to files and folders at any depth', async () => {
    write('.gitignore', '*.log\nbuild/\n');
    const rules = new GitIgnore(dir.path);
    expect(await rules.ignores('debug.log')).toBe(true);
    expect(await rules.ignores('deep/er/trace.log')).toBe(true);
    expect(await rules.ignores('build/')).toBe(true);
    expect(await rules.ignores('src/build/')).toBe(true);
    expect(await rules.ignores('src/main.ts')).toBe(false);
  });

  it('ignores every file inside an ignored folder', async () => {
    write('.gitignore', 'node_modules/\ndist\n');
    const rules = new GitIgnore(dir.path);
    expect(await rules.ignores('node_modules/pkg/index.js')).toBe(true);
    expect(await rules.ignores('packages/a/dist/out.js')).toBe(true);
    expect(await rules.ignores('packages/a/src/dist.ts')).toBe(false);
  });

  it('does not treat a folder-only rule (build/) as matching a file named build', async () => {
    write('.gitignore', 'build/\n');
    expect(await new GitIgnore(dir.path).ignores('build')).toBe(false);
  });

  it('applies a nested .gitignore to its own folder and below only, relative to it', async () => {
    write('.gitignore', '');
    write('pkg/.gitignore', '/generated.ts\ncache/\n');
    const rules = new GitIgnore(dir.path);
    expect(await rules.ignores('pkg/generated.ts')).toBe(true);
    expect(await rules.ignores('pkg/sub/generated.ts')).toBe(false);
    expect(await rules.ignores('generated.ts')).toBe(false);
    expect(await rules.ignores('pkg/cache/x.bin')).toBe(true);
    expect(await rules.ignores('other/cache/x.bin')).toBe(false);
  });

  it('keeps a file a negation re-includes', async () => {
    write('.gitignore', '*.env\n!example.env\n');
    const rules = new GitIgnore(dir.path);
    expect(await rules.ignores('prod.env')).toBe(true);
    expect(await rules.ignores('example.env')).toBe(false);
  });

  it('anchors a rule with a slash in the middle to the folder of its .gitignore', async () => {
    write('.gitignore', 'docs/internal\n');
    const rules = new GitIgnore(dir.path);
    expect(await rules.ignores('docs/internal/plan.md')).toBe(true);
    expect(await rules.ignores('src/docs/internal/plan.md')).toBe(false);
  });

  it('ignores comments and blank lines, and an escaped # is a name', async () => {
    write('.gitignore', '# a comment\n\n\\#notes.md\n');
    const rules = new GitIgnore(dir.path);
    expect(await rules.ignores('# a comment')).toBe(false);
    expect(await rules.ignores('#notes.md')).toBe(true);
  });

  it('reads each folder’s rules once per instance: a later change is seen by a new one', async () => {
    write('.gitignore', 'a.txt\n');
    const rules = new GitIgnore(dir.path);
    expect(await rules.ignores('a.txt')).toBe(true);
    write('.gitignore', 'b.txt\n');
    expect(await rules.ignores('b.txt')).toBe(false);
    expect(await new GitIgnore(dir.path).ignores('b.txt')).toBe(true);
  });

  it('does not follow a .gitignore that is a link (rules from outside never apply)', async () => {
    const outside = tempDir();
    try {
      writeFileSync(join(outside.path, 'rules'), '*\n');
      symlinkSync(join(outside.path, 'rules'), join(dir.path, '.gitignore'));
      expect(await new GitIgnore(dir.path).ignores('src/main.ts')).toBe(false);
    } finally {
      outside.cleanup();
    }
  });

  it('skips a .gitignore that is a named pipe without hanging', async () => {
    execFileSync('mkfifo', [join(dir.path, '.gitignore')]);
    expect(await new GitIgnore(dir.path).ignores('x.log')).toBe(false);
  });

  it('skips a .gitignore that is a folder', async () => {
    mkdirSync(join(dir.path, '.gitignore'));
    expect(await new GitIgnore(dir.path).ignores('x.log')).toBe(false);
  });

  it('reads at most 1 MiB of a huge .gitignore, keeping the whole lines before the cut', async () => {
    // A sparse gigabyte whose first line is a rule: it is applied, the rest is never read.
    sparseFile(join(dir.path, '.gitignore'), 1024 * 1024 * 1024, '*.secret\n');
    const rules = new GitIgnore(dir.path);
    expect(await rules.ignores('key.secret')).toBe(true);
    expect(await rules.ignores('key.public')).toBe(false);
  });

  it('drops the line cut at the 1 MiB bound instead of applying half a rule', async () => {
    // The last rule starts 3 bytes before the bound: read whole, "*.t" of "*.txt" would ignore a.t.
    const head = 'keep.me\n';
    const comment = `#${'x'.repeat(1024 * 1024 - 3 - head.length - 2)}\n`;
    write('.gitignore', `${head}${comment}*.txt\n`);
    const rules = new GitIgnore(dir.path);
    expect(await rules.ignores('keep.me')).toBe(true);
    expect(await rules.ignores('a.t')).toBe(false);
    expect(await rules.ignores('a.txt')).toBe(false);
  });
});
