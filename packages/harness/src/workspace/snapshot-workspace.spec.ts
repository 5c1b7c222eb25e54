// snapshotWorkspace / restoreWorkspace / snapshotIdOf directly: what a snapshot holds and leaves
// out (and says so), the marker it records, and a restore that only writes what differs and
// never writes outside the workspace, whatever the snapshot says.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../__tests__/helpers.js';
import { LocalFileSystem } from './local-file-system.js';
import {
  restoreWorkspace,
  SNAPSHOT_MARKER,
  snapshotIdOf,
  snapshotWorkspace,
  type WorkspaceSnapshot,
} from './snapshot-workspace.js';
import { WorkspacePathError } from './workspace-path-error.js';

describe('workspace snapshots, function by function', () => {
  let here: ReturnType<typeof tempDir>;
  let there: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  let other: LocalFileSystem;
  beforeEach(() => {
    here = tempDir();
    there = tempDir();
    fs = new LocalFileSystem(here.path);
    other = new LocalFileSystem(there.path);
  });
  afterEach(() => {
    here.cleanup();
    there.cleanup();
  });

  const write = (root: string, path: string, data: string | Uint8Array): void => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), data);
  };
  const pathsOf = (s: WorkspaceSnapshot): string[] => s.files.map((f) => f.path);
  /** Paths in the order a snapshot lists them (localeCompare). */
  const sorted = (paths: string[]): string[] => [...paths].sort((a, b) => a.localeCompare(b));

  it('holds every file with its bytes (binary too) and sha256, sorted by path', async () => {
    write(here.path, 'src/b.ts', 'export const b = 2;\n');
    write(here.path, 'a.bin', Uint8Array.from([0, 1, 2, 255]));
    const snapshot = await snapshotWorkspace(fs);
    expect(snapshot.version).toBe(1);
    expect(pathsOf(snapshot)).toEqual(sorted(['AGENTS.md', 'MEMORY.md', 'a.bin', 'src/b.ts']));
    const bin = snapshot.files.find((f) => f.path === 'a.bin')!;
    expect(Buffer.from(bin.content, 'base64')).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(bin.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(snapshot.omitted).toEqual([]);
    expect(Number.isNaN(Date.parse(snapshot.takenAt))).toBe(false);
  });

  it('records its id in the workspace, and leaves the marker itself out of the next snapshot', async () => {
    expect(await snapshotIdOf(fs)).toBeUndefined();
    const first = await snapshotWorkspace(fs);
    expect(first.id).toMatch(/^snap_[0-9a-z]+_[0-9a-f]{12}$/);
    expect(await snapshotIdOf(fs)).toBe(first.id);
    const second = await snapshotWorkspace(fs);
    expect(pathsOf(second)).not.toContain(SNAPSHOT_MARKER);
  });

  it('gives different contents different ids', async () => {
    write(here.path, 'x.txt', 'one');
    const a = await snapshotWorkspace(fs);
    write(here.path, 'x.txt', 'two');
    const b = await snapshotWorkspace(fs);
    expect(a.id.split('_')[2]).not.toBe(b.id.split('_')[2]);
  });

  it('leaves out the largest files first when the total does not fit, naming each', async () => {
    write(here.path, 'small.txt', 'x'.repeat(10));
    write(here.path, 'medium.txt', 'x'.repeat(100));
    write(here.path, 'large.txt', 'x'.repeat(1_000));
    const snapshot = await snapshotWorkspace(fs, { maxTotalBytes: 150 });
    expect(pathsOf(snapshot)).toEqual(sorted(['AGENTS.md', 'MEMORY.md', 'medium.txt', 'small.txt']));
    expect(snapshot.omitted).toEqual([{ path: 'large.txt', bytes: 1_000, reason: 'over_total' }]);
  });

  it('names a file over maxFileBytes as too_large and never reads it', async () => {
    write(here.path, 'big.log', 'y'.repeat(5_000));
    write(here.path, 'ok.txt', 'fine');
    const snapshot = await snapshotWorkspace(fs, { maxFileBytes: 4_999 });
    expect(snapshot.omitted).toEqual([{ path: 'big.log', bytes: 5_000, reason: 'too_large' }]);
    expect(pathsOf(snapshot)).toContain('ok.txt');
  });

  it('leaves out evicted results and histories by default, but keeps them with exclude: []', async () => {
    write(here.path, 'large_tool_results/r1.txt', 'evicted');
    write(here.path, 'conversation_history/h.json', '[]');
    expect(pathsOf(await snapshotWorkspace(fs))).not.toEqual(expect.arrayContaining(['large_tool_results/r1.txt']));
    const all = pathsOf(await snapshotWorkspace(fs, { exclude: [] }));
    expect(all).toEqual(expect.arrayContaining(['large_tool_results/r1.txt', 'conversation_history/h.json']));
  });

  it('excludes a folder named without a slash, but not a file that merely starts with its name', async () => {
    write(here.path, 'data/rows.csv', 'a,b');
    write(here.path, 'database.txt', 'keep');
    const paths = pathsOf(await snapshotWorkspace(fs, { exclude: ['data'] }));
    expect(paths).toContain('database.txt');
    expect(paths).not.toContain('data/rows.csv');
  });

  it('always leaves out what .gitignore excludes and .git/', async () => {
    write(here.path, '.gitignore', 'secret.env\n');
    write(here.path, 'secret.env', 'TOKEN=1');
    write(here.path, '.git/HEAD', 'ref: refs/heads/main\n');
    const paths = pathsOf(await snapshotWorkspace(fs, { exclude: [] }));
    expect(paths).toContain('.gitignore');
    expect(paths).not.toContain('secret.env');
    expect(paths).not.toContain('.git/HEAD');
  });

  it('restores into another folder, writing only files that differ, and leaves other files alone', async () => {
    write(here.path, 'notes/a.md', 'alpha');
    write(here.path, 'notes/b.md', 'beta');
    const snapshot = await snapshotWorkspace(fs);
    write(there.path, 'notes/a.md', 'alpha');
    write(there.path, 'notes/b.md', 'stale beta');
    write(there.path, 'local-only.txt', 'mine');
    const written = await restoreWorkspace(other, snapshot);
    expect(written).toEqual(['notes/b.md']);
    expect(readFileSync(join(there.path, 'notes/b.md'), 'utf8')).toBe('beta');
    expect(readFileSync(join(there.path, 'local-only.txt'), 'utf8')).toBe('mine');
    expect(await snapshotIdOf(other)).toBe(snapshot.id);
    expect(await restoreWorkspace(other, snapshot)).toEqual([]);
  });

  it('rewrites a file that is longer than the snapshot’s copy', async () => {
    write(here.path, 'f.txt', 'short');
    const snapshot = await snapshotWorkspace(fs);
    write(there.path, 'f.txt', 'short and then a lot more');
    expect(await restoreWorkspace(other, snapshot)).toContain('f.txt');
    expect(readFileSync(join(there.path, 'f.txt'), 'utf8')).toBe('short');
  });

  it.each([null, {}, { version: 2, files: [] }, { version: 1, files: 'nope' }])(
    'refuses %p as not a workspace snapshot',
    async (bad) => {
      await expect(restoreWorkspace(other, bad as never)).rejects.toThrow('Not a workspace snapshot (version 1).');
    },
  );

  it.each(['../escaped.txt', '/tmp/rxscope-absolute-escape.txt', 'notes/../../escaped.txt'])(
    'refuses to write %s from a tampered snapshot outside the workspace',
    async (path) => {
      const forged: WorkspaceSnapshot = {
        version: 1,
        id: 'snap_forged',
        takenAt: new Date().toISOString(),
        files: [{ path, content: Buffer.from('pwned').toString('base64'), sha256: '0'.repeat(64) }],
        omitted: [],
      };
      const error = await restoreWorkspace(other, forged).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkspacePathError);
      expect((error as WorkspacePathError).code).toBe('outside_workspace');
      expect(existsSync(join(there.path, '..', 'escaped.txt'))).toBe(false);
      expect(existsSync('/tmp/rxscope-absolute-escape.txt')).toBe(false);
    },
  );

  it('reads no id from an oversized marker file', async () => {
    writeFileSync(join(here.path, SNAPSHOT_MARKER), 'x'.repeat(5_000));
    expect(await snapshotIdOf(fs)).toBeUndefined();
    writeFileSync(join(here.path, SNAPSHOT_MARKER), '  snap_abc  \n');
    expect(await snapshotIdOf(fs)).toBe('snap_abc');
  });
});
