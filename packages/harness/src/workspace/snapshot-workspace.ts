import { createHash } from 'node:crypto';
import { FileTooLargeError } from './file-too-large-error.js';
import { WORKSPACE_LAYOUT } from './layout.js';
import type { WorkspaceFileSystem } from './workspace-file-system.js';

/** Longest snapshot id read back from {@link SNAPSHOT_MARKER}: ids are about 40 characters. */
const MAX_MARKER_BYTES = 1024;

/** One file of a {@link WorkspaceSnapshot}. */
export interface SnapshotFile {
  /** Relative to the workspace root. */
  readonly path: string;
  /** The bytes, base64. */
  readonly content: string;
  /** sha256 of the bytes, hex. */
  readonly sha256: string;
}

/**
 * The files of a workspace as JSON, to be saved with the session (in the agent state) and
 * written into another workspace folder, on another machine, when the session resumes there.
 *
 * @example
 * ```ts
 * const snapshot = await snapshotWorkspace(fs);
 * console.log(snapshot.files.length, snapshot.omitted); // what did not fit is named, never dropped silently
 * ```
 */
export interface WorkspaceSnapshot {
  readonly version: 1;
  /** Unique per snapshot; the workspace it was taken from or restored into records it. */
  readonly id: string;
  readonly takenAt: string;
  readonly files: readonly SnapshotFile[];
  /** Files left out, and why (`too_large`, `over_total`). */
  readonly omitted: readonly {
    readonly path: string;
    readonly bytes: number;
    readonly reason: 'too_large' | 'over_total';
  }[];
}

/** Limits and exclusions of {@link snapshotWorkspace}. */
export interface WorkspaceSnapshotOptions {
  /** Files larger than this are left out. Default 256 KiB. */
  readonly maxFileBytes?: number;
  /** The snapshot holds at most this many bytes; the largest files are left out first. Default 2 MiB. */
  readonly maxTotalBytes?: number;
  /**
   * Folders (or files) left out, relative to the root. Default {@link SNAPSHOT_EXCLUDED}:
   * evicted tool results and saved conversation histories (large, and copies of what the session
   * holds). `.git/`, what `.gitignore` files exclude, and the snapshot marker are always left out.
   */
  readonly exclude?: readonly string[];
}

/**
 * What a snapshot leaves out by default: `large_tool_results/` and `conversation_history/`.
 *
 * @example
 * ```ts
 * snapshotWorkspace(fs, { exclude: [...SNAPSHOT_EXCLUDED, 'data/'] });
 * ```
 */
export const SNAPSHOT_EXCLUDED: readonly string[] = [
  `${WORKSPACE_LAYOUT.largeToolResults}/`,
  `${WORKSPACE_LAYOUT.history}/`,
];

/**
 * The file where a workspace records the id of the snapshot it holds (`.rxscope-snapshot`).
 *
 * @example
 * ```ts
 * const id = new TextDecoder().decode(await fs.readFile(SNAPSHOT_MARKER)); // the snapshot this folder has
 * ```
 */
export const SNAPSHOT_MARKER = '.rxscope-snapshot';

/**
 * Takes a snapshot of the workspace's files (see {@link WorkspaceSnapshotOptions} for what is
 * left out) and records its id in the workspace.
 *
 * @example
 * ```ts
 * const snapshot = await snapshotWorkspace(new LocalFileSystem('./ws'), { maxTotalBytes: 1 << 20 });
 * ```
 */
export async function snapshotWorkspace(
  fs: WorkspaceFileSystem,
  options: WorkspaceSnapshotOptions = {},
): Promise<WorkspaceSnapshot> {
  const maxFile = options.maxFileBytes ?? 256 * 1024;
  const maxTotal = options.maxTotalBytes ?? 2 * 1024 * 1024;
  const paths = await snapshotPaths(fs, options.exclude);
  const omitted: { path: string; bytes: number; reason: 'too_large' | 'over_total' }[] = [];
  const sized: { path: string; bytes: number }[] = [];
  for (const path of paths) {
    const stat = await fs.stat(path);
    if (!stat || stat.type !== 'file') continue;
    if (stat.size > maxFile) omitted.push({ path, bytes: stat.size, reason: 'too_large' });
    else sized.push({ path, bytes: stat.size });
  }
  // Smallest first: when the total does not fit, the largest files are the ones left out.
  let total = 0;
  const files: SnapshotFile[] = [];
  for (const { path, bytes } of [...sized].sort((a, b) => a.bytes - b.bytes || a.path.localeCompare(b.path))) {
    if (total + bytes > maxTotal) {
      omitted.push({ path, bytes, reason: 'over_total' });
      continue;
    }
    // Bounded on the read too: the file may have grown since its size was taken.
    const data = await fs.readFile(path, { maxBytes: maxFile }).catch((e: unknown) => {
      if (e instanceof FileTooLargeError) return e;
      throw e;
    });
    if (data instanceof FileTooLargeError) {
      omitted.push({ path, bytes: data.size ?? maxFile + 1, reason: 'too_large' });
      continue;
    }
    if (total + data.byteLength > maxTotal) {
      omitted.push({ path, bytes: data.byteLength, reason: 'over_total' });
      continue;
    }
    total += data.byteLength;
    files.push({ path, content: Buffer.from(data).toString('base64'), sha256: sha256(data) });
  }
  files.sort((a, b) => a.path.localeCompare(b.path));
  const id = `snap_${Date.now().toString(36)}_${sha256(new TextEncoder().encode(files.map((f) => f.sha256).join())).slice(0, 12)}`;
  await fs.writeFile(SNAPSHOT_MARKER, id);
  return {
    version: 1,
    id,
    takenAt: new Date().toISOString(),
    files,
    omitted: omitted.sort((a, b) => a.path.localeCompare(b.path)),
  };
}

/**
 * Writes a snapshot's files into a workspace (only those whose content differs; files the
 * snapshot does not hold are left alone, unless `exact`) and records its id there. Resolves with
 * the paths written (and removed).
 *
 * @example
 * ```ts
 * await restoreWorkspace(new LocalFileSystem('/srv/other-machine/ws'), snapshot);
 * ```
 */
export async function restoreWorkspace(
  fs: WorkspaceFileSystem,
  snapshot: WorkspaceSnapshot,
  options: RestoreWorkspaceOptions = {},
): Promise<string[]> {
  const files: readonly SnapshotFile[] = snapshot?.files;
  if (snapshot?.version !== 1 || !Array.isArray(files)) throw new Error('Not a workspace snapshot (version 1).');
  const written: string[] = [];
  for (const file of files as readonly SnapshotFile[]) {
    const content = Buffer.from(file.content, 'base64');
    // A file larger than the snapshot's differs from it: it is never read whole.
    const existing = await fs.readFile(file.path, { maxBytes: content.byteLength }).catch(() => undefined);
    if (existing && sha256(existing) === file.sha256) continue;
    await fs.writeFile(file.path, content);
    written.push(file.path);
  }
  if (options.exact) {
    // Files the snapshot would have held but does not: created after it was taken (left-out ones stay).
    const omitted: WorkspaceSnapshot['omitted'] = snapshot.omitted ?? [];
    const held = new Set<string>(omitted.map((o) => o.path));
    for (const file of files as readonly SnapshotFile[]) held.add(file.path);
    for (const path of await snapshotPaths(fs, options.exclude)) {
      if (held.has(path) || (await fs.stat(path))?.type !== 'file') continue;
      await fs.removeFile(path);
      written.push(path);
    }
  }
  await fs.writeFile(SNAPSHOT_MARKER, snapshot.id);
  return written;
}

/**
 * Options of {@link restoreWorkspace}.
 *
 * @example
 * ```ts
 * await restoreWorkspace(fs, earlier, { exact: true }); // the files as they were, later ones removed
 * ```
 */
export interface RestoreWorkspaceOptions {
  /**
   * Also remove the files a snapshot would hold but does not (created after it was taken), so
   * the workspace is as it was (a rewind). Excluded folders (evicted results, histories), `.git/`
   * and git-ignored files are never touched. Default `false`: other files are left alone.
   */
  readonly exact?: boolean;
  /** What the snapshot left out (as in {@link WorkspaceSnapshotOptions}). Default {@link SNAPSHOT_EXCLUDED}. */
  readonly exclude?: readonly string[];
}

/** The workspace's files a snapshot covers: not excluded, not git-ignored, not the marker. */
async function snapshotPaths(
  fs: WorkspaceFileSystem,
  exclude: readonly string[] = SNAPSHOT_EXCLUDED,
): Promise<string[]> {
  const excluded = (path: string) =>
    path === SNAPSHOT_MARKER || exclude.some((e) => path === e || path.startsWith(e.endsWith('/') ? e : `${e}/`));
  return (await fs.glob('**/*', { respectGitignore: true, limit: 100_000 })).filter((p) => !excluded(p));
}

/**
 * The id of the snapshot a workspace holds (taken there or restored into it), if any.
 *
 * @example
 * ```ts
 * if ((await snapshotIdOf(fs)) !== saved.id) await restoreWorkspace(fs, saved);
 * ```
 */
export async function snapshotIdOf(fs: WorkspaceFileSystem): Promise<string | undefined> {
  const data = await fs.readFile(SNAPSHOT_MARKER, { maxBytes: MAX_MARKER_BYTES }).catch(() => undefined);
  return data ? new TextDecoder().decode(data).trim() : undefined;
}

function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
