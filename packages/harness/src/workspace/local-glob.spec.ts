// Finding 1 of issue #28, globs: tinyglobby matched the model's glob with picomatch's backtracking
// regular expressions, so `*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b` against one file named with 40 "a"
// held the event loop for about two minutes. Globs are now compiled to RE2 and matched in time
// slices; tinyglobby only crawls.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool, ToolContext } from '@rxscope/core';
import { probeEventLoop, RESPONSIVE_MS } from '../__tests__/probes.js';
import { toolInput, tempDir } from '../__tests__/helpers.js';
import { HarnessOptionError } from '../options/harness-option-error.js';
import { PatternError } from '../search/pattern-error.js';
import { globFilesTool } from '../tools/glob-files.js';
import { LocalFileSystem } from './local-file-system.js';

const ctx: ToolContext = {
  signal: new AbortController().signal,
  callId: 'c1',
  idempotencyKey: 'c1',
  agentName: 'a',
  replyId: 'r',
  emit: () => undefined,
  forward: () => undefined,
};

const refusal = async (p: Promise<unknown>): Promise<PatternError> => {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PatternError);
  return error as PatternError;
};

describe('LocalFileSystem.glob against hostile globs', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => dir.cleanup());

  it.each([
    ['many stars in a name', `*${'a*'.repeat(14)}b`],
    ['many globstars', `${'**/'.repeat(12)}x`],
    ['a chain of braces', '{a,b}'.repeat(40)],
    ['stars and question marks', `**/*a${'?'.repeat(40)}*b`],
  ])('matches %s against long names without holding the event loop', async (_what, pattern) => {
    writeFileSync(join(dir.path, `${'a'.repeat(40)}!`), '');
    writeFileSync(join(dir.path, `${'a'.repeat(250)}!`), '');
    mkdirSync(join(dir.path, ...Array.from({ length: 30 }, () => 'a'.repeat(60))), { recursive: true });
    const probe = probeEventLoop();
    const found = await fs.glob(pattern);
    const heldMs = probe.stop();
    expect(found).toEqual([]);
    expect(heldMs).toBeLessThan(RESPONSIVE_MS);
  });

  it('keeps the glob syntax people use: *, **, ?, classes, braces, escapes and dotfiles', async () => {
    for (const file of [
      'src/main.ts',
      'src/app/view.tsx',
      'src/app/.env',
      'test/test_a.py',
      'test/test_b.pyi',
      'a.md',
      'b.md',
      'c.md',
      'x*y.txt',
      '[id].tsx',
    ]) {
      await fs.writeFile(file, '');
    }
    expect(await fs.glob('**/*.{ts,tsx}')).toEqual(['[id].tsx', 'src/app/view.tsx', 'src/main.ts']);
    expect(await fs.glob('src/*')).toEqual(['src/main.ts']);
    expect(await fs.glob('src/**')).toEqual(['src/app/.env', 'src/app/view.tsx', 'src/main.ts']);
    expect(await fs.glob('./test/test_?.py*')).toEqual(['test/test_a.py', 'test/test_b.pyi']);
    expect(await fs.glob('[ab].md')).toEqual(['a.md', 'b.md']);
    expect(await fs.glob('[!ab].md')).toEqual(['c.md']);
    expect(await fs.glob('x\\*y.txt')).toEqual(['x*y.txt']);
    expect(await fs.glob('\\[id\\].tsx')).toEqual(['[id].tsx']);
    expect(await fs.glob('**/.env')).toEqual(['src/app/.env']);
    expect(await fs.glob('{src/app,test}/*.{tsx,py}')).toEqual(['src/app/view.tsx', 'test/test_a.py']);
    expect(await fs.glob('*.tsx', { cwd: 'src/app' })).toEqual(['src/app/view.tsx']);
  });

  it('leaves out .git and a fixed folder that is a link leading out', async () => {
    const outside = tempDir('rxscope-outside-');
    try {
      writeFileSync(join(outside.path, 'secret.ts'), '');
      symlinkSync(outside.path, join(dir.path, 'out'));
      await fs.writeFile('.git/config.ts', '');
      expect(await fs.glob('out/*.ts')).toEqual([]);
      expect(await fs.glob('.git/*', { respectGitignore: false })).toEqual([]);
    } finally {
      outside.cleanup();
    }
  });

  it.each([
    ['an extglob', '+(a|b).ts', /extglob \("\+\(" at character 1\).*use \{a,b\}/],
    ['a negation', '!*.ts', /negation \("!" at character 1\)/],
    ['a range', 'file{1..3}.txt', /range \("\{1\.\.3\}" at character 5\).*list the values instead/],
    ['a POSIX class that does not exist', '[[:nope:]]', /unknown class/],
  ])('refuses %s, saying what is supported', async (_what, pattern, message) => {
    const error = await refusal(fs.glob(pattern));
    expect(error.code).toBe('pattern_unsupported');
    expect(error.message).toMatch(message);
    expect(error.message).toContain('Globs support * (within a folder), ** (any folders)');
  });

  it('refuses a glob that is too long or compiles too large', async () => {
    expect((await refusal(fs.glob(`${'a/'.repeat(500)}x`))).code).toBe('pattern_too_long');
    const complex = await refusal(fs.glob('?'.repeat(240)));
    expect(complex.code).toBe('pattern_too_complex');
    expect(complex.message).toMatch(/too complex: it compiles to [\d,]+ instructions, more than the 200 allowed/);
  });

  it('gives glob_files the refusal as its error, and refuses unknown options by name', async () => {
    const tool = globFilesTool(fs) as Tool;
    await expect(tool.execute!(toolInput(tool, { pattern: '@(a|b)' }), ctx) as Promise<string>).rejects.toThrow(
      /extglob/,
    );
    expect(() => globFilesTool(fs, { maxResult: 5 } as never)).toThrow(HarnessOptionError);
    await expect(fs.glob('*', { limt: 5 } as never)).rejects.toThrow(
      /unknown option "limt" of glob; did you mean "limit"\?/,
    );
  });
});
