import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync, linkSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { tempDir } from '../__tests__/helpers.js';
import { LocalFileSystem } from './local-file-system.js';
import { WORKSPACE_LAYOUT } from './layout.js';
import { WorkspacePathError } from './workspace-path-error.js';

describe('LocalFileSystem', () => {
  let dir: ReturnType<typeof tempDir>;
  let root: string;
  let outside: string;
  let fs: LocalFileSystem;

  beforeEach(() => {
    dir = tempDir();
    root = join(dir.path, 'ws');
    outside = join(dir.path, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET\n');
    fs = new LocalFileSystem(root);
  });
  afterEach(() => dir.cleanup());

  const refused = async (p: Promise<unknown>, code: string) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkspacePathError);
    expect((err as WorkspacePathError).code).toBe(code);
    return (err as WorkspacePathError).message;
  };

  it('creates the workspace with its layout and leaves existing files alone', () => {
    for (const folder of ['memory', 'knowledge', 'skills', 'subagents', 'plans', 'large_tool_results']) {
      expect(statSync(join(root, folder)).isDirectory()).toBe(true);
    }
    expect(readFileSync(join(root, WORKSPACE_LAYOUT.agents), 'utf8')).toBe('');
    writeFileSync(join(root, 'AGENTS.md'), 'Be brief.');
    new LocalFileSystem(root);
    expect(readFileSync(join(root, 'AGENTS.md'), 'utf8')).toBe('Be brief.');
  });

  it('refuses a workspace path that is a file', () => {
    writeFileSync(join(dir.path, 'file'), 'x');
    expect(() => new LocalFileSystem(join(dir.path, 'file'))).toThrow(/exists but is not a folder/);
  });

  it('writes, reads, stats and lists inside the workspace', async () => {
    expect(await fs.writeFile('src/a.txt', 'hello\n')).toEqual({ created: true, path: 'src/a.txt' });
    expect(await fs.writeFile(join(root, 'src/a.txt'), 'again\n')).toEqual({ created: false, path: 'src/a.txt' });
    expect(Buffer.from(await fs.readFile('src/a.txt')).toString()).toBe('again\n');
    expect(await fs.stat('src/a.txt')).toMatchObject({ path: 'src/a.txt', type: 'file', size: 6 });
    expect(await fs.stat('nope.txt')).toBeUndefined();
    expect(await fs.list('src')).toEqual([{ path: 'src/a.txt', type: 'file', size: 6 }]);
  });

  it('refuses .. and absolute paths outside, with a message naming the workspace', async () => {
    const message = await refused(fs.readFile('../outside/secret.txt'), 'outside_workspace');
    expect(message).toContain(root);
    await refused(fs.readFile(join(outside, 'secret.txt')), 'outside_workspace');
    await refused(fs.writeFile('a/../../outside/new.txt', 'x'), 'outside_workspace');
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
  });

  it('refuses symlinks leading out: to a file, to a folder, in the middle of a path, and dangling ones on write', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'));
    symlinkSync(outside, join(root, 'linkdir'));
    symlinkSync(join(outside, 'created-by-write.txt'), join(root, 'dangling.txt'));
    await refused(fs.readFile('link.txt'), 'symlink_outside');
    await refused(fs.readFile('linkdir/secret.txt'), 'symlink_outside');
    await refused(fs.list('linkdir'), 'symlink_outside');
    await refused(fs.writeFile('linkdir/new.txt', 'x'), 'symlink_outside');
    await refused(fs.writeFile('dangling.txt', 'x'), 'symlink_outside');
    await refused(fs.writeFile('link.txt', 'overwritten'), 'symlink_outside');
    expect(existsSync(join(outside, 'created-by-write.txt'))).toBe(false);
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
  });

  it('follows symlinks that stay inside', async () => {
    await fs.writeFile('real.txt', 'inside\n');
    symlinkSync('real.txt', join(root, 'alias.txt'));
    expect(Buffer.from(await fs.readFile('alias.txt')).toString()).toBe('inside\n');
    await fs.writeFile('alias.txt', 'changed\n');
    expect(readFileSync(join(root, 'real.txt'), 'utf8')).toBe('changed\n');
  });

  it('refuses device files and named pipes without opening them', async () => {
    execFileSync('mkfifo', [join(root, 'pipe')]);
    await refused(fs.readFile('pipe'), 'special_file');
    await refused(fs.writeFile('pipe', 'x'), 'special_file');
    symlinkSync('/dev/zero', join(root, 'zero'));
    await refused(fs.readFile('zero'), 'symlink_outside');
    await refused(fs.readFile('/dev/zero'), 'outside_workspace');
  });

  it('refuses NUL bytes and over-long names and paths before touching the disk', async () => {
    await refused(fs.readFile('a\0b'), 'nul_byte');
    await refused(fs.writeFile(`${'x'.repeat(256)}.txt`, 'x'), 'name_too_long');
    await refused(fs.readFile(`${'d/'.repeat(2100)}f`), 'path_too_long');
  });

  it('refuses paths written for another system instead of taking them as literal names inside', async () => {
    for (const path of ['..\\outside\\x.txt', 'src\\a.ts', '~/x.txt', '~', '~root/.ssh/id_rsa', 'file:///etc/passwd']) {
      await refused(fs.writeFile(path, 'x'), 'invalid_path');
    }
    for (const path of ['%2e%2e%2foutside%2fx.txt', '..%2Foutside', '%2Fetc%2Fpasswd', '%7E/x.txt', 'a%5Cb']) {
      await refused(fs.writeFile(path, 'x'), 'invalid_path');
    }
    // Names that merely look alike stay usable: a literal %xx that leads nowhere, a ~ not first.
    for (const path of ['~backup.txt', 'notes~', 'a%20b.txt', '100%.txt', 'src/~tmp/x.txt']) {
      await fs.writeFile(path, 'ok');
      expect(readFileSync(join(root, path), 'utf8')).toBe('ok');
    }
  });

  it('writes through a hard link never change the other link (the file is replaced, not written into)', async () => {
    writeFileSync(join(dir.path, 'shared.txt'), 'original\n');
    linkSync(join(dir.path, 'shared.txt'), join(root, 'hard.txt'));
    await fs.writeFile('hard.txt', 'new\n');
    expect(readFileSync(join(dir.path, 'shared.txt'), 'utf8')).toBe('original\n');
    expect(readFileSync(join(root, 'hard.txt'), 'utf8')).toBe('new\n');
  });

  it('globs inside the workspace, honours nested .gitignore files, and leaves out links leading out', async () => {
    await fs.writeFile('.gitignore', 'dist/\n*.log\n');
    await fs.writeFile('src/a.ts', '');
    await fs.writeFile('src/.gitignore', 'generated.ts\n');
    await fs.writeFile('src/generated.ts', '');
    await fs.writeFile('dist/a.js', '');
    await fs.writeFile('debug.log', '');
    await fs.writeFile('.git/config', '');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'src', 'secret.ts'));
    symlinkSync(outside, join(root, 'src', 'outdir'));
    expect(await fs.glob('**/*')).toEqual(['.gitignore', 'AGENTS.md', 'MEMORY.md', 'src/.gitignore', 'src/a.ts']);
    expect(await fs.glob('**/*.ts', { cwd: 'src' })).toEqual(['src/a.ts']);
    expect(await fs.glob('**/*', { respectGitignore: false })).toContain('dist/a.js');
    await refused(fs.glob('../**/*'), 'outside_workspace');
    await refused(fs.glob('/etc/*'), 'outside_workspace');
  });

  it('catches a symlink swapped in after the check (the opened descriptor is checked)', async () => {
    await fs.writeFile('race.txt', 'inside\n');
    const real = (fs as unknown as { confine(p: string): Promise<string> }).confine.bind(fs);
    // Simulate the race: the check sees the file, then a shell replaces it with a link out.
    (fs as unknown as { confine(p: string): Promise<string> }).confine = async (p: string) => {
      const checked = await real(p);
      const { rmSync } = await import('node:fs');
      rmSync(join(root, 'race.txt'));
      symlinkSync(join(outside, 'secret.txt'), join(root, 'race.txt'));
      return checked;
    };
    await refused(fs.readFile('race.txt'), 'symlink_outside');
  });
});
