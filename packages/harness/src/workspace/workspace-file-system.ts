/** One entry of a listed folder. */
export interface WorkspaceEntry {
  /** Path relative to the workspace root, with `/` separators. */
  readonly path: string;
  readonly type: 'file' | 'directory' | 'symlink' | 'other';
  /** Size in bytes (files only). */
  readonly size?: number;
}

/** What {@link WorkspaceFileSystem.stat} tells about an existing path. */
export interface WorkspaceStat {
  readonly path: string;
  readonly type: 'file' | 'directory';
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * Largest file `WorkspaceFileSystem.readFile` reads when no `maxBytes` is given: 64 MiB. Every
 * read has a bound; the harness's own readers pass smaller ones.
 *
 * @example
 * ```ts
 * await fs.readFile('data/big.csv', { maxBytes: 2 * DEFAULT_MAX_READ_BYTES }); // raise it for one read
 * ```
 */
export const DEFAULT_MAX_READ_BYTES = 64 * 1024 * 1024;

/**
 * Options of {@link WorkspaceFileSystem.readFile}.
 *
 * @example
 * ```ts
 * const head = await fs.readFile('logs/app.log', { maxBytes: 64 * 1024, truncate: true }); // the first 64 KiB
 * ```
 */
export interface WorkspaceReadOptions {
  /**
   * Largest file read, in bytes; a larger one throws a `FileTooLargeError` (`file_too_large`).
   * Checked on the read itself (at most one byte past it is read), not only on a prior `stat`.
   * Default {@link DEFAULT_MAX_READ_BYTES}.
   */
  readonly maxBytes?: number;
  /** Return the first `maxBytes` bytes of a larger file instead of refusing it. Default false. */
  readonly truncate?: boolean;
}

/** Options of {@link WorkspaceFileSystem.glob}. */
export interface WorkspaceGlobOptions {
  /** Folder to search from (relative to the root). Default: the root. */
  readonly cwd?: string;
  /** Leave out what `.gitignore` files (and `.git/`) exclude. Default true. */
  readonly respectGitignore?: boolean;
  /** Stop after this many matches. Default 10,000. */
  readonly limit?: number;
}

/**
 * The files a harness agent works on, confined to one folder. Every path is relative to the
 * root (absolute paths are accepted when they lie inside it) and is checked on every access:
 * `..`, absolute paths outside, symlinks leading out (also ones created while the agent runs),
 * device files and other special files, NUL bytes and over-long names are refused with a
 * {@link WorkspacePathError}; nothing outside is read, listed or written.
 *
 * `LocalFileSystem` is the implementation on the local disk; another one (a remote sandbox's
 * files) can be passed to `createHarnessAgent({ fileSystem })`.
 *
 * @example
 * ```ts
 * const fs: WorkspaceFileSystem = new LocalFileSystem('./ws');
 * await fs.writeFile('notes/todo.txt', 'ship it\n');
 * const text = new TextDecoder().decode(await fs.readFile('notes/todo.txt'));
 * ```
 */
export interface WorkspaceFileSystem {
  /** Real path of the workspace root. */
  readonly root: string;
  /** The confined path relative to the root (`.` for the root); throws a `WorkspacePathError`. */
  resolve(path: string): Promise<string>;
  /**
   * Reads a regular file, at most `maxBytes` bytes (see {@link WorkspaceReadOptions}): a larger
   * file throws a `FileTooLargeError`, or with `truncate` gives its first `maxBytes` bytes. An
   * implementation must bound the read itself, never only check a size first.
   */
  readFile(path: string, options?: WorkspaceReadOptions): Promise<Uint8Array>;
  /** Writes a file atomically, creating missing folders; returns whether it was created. */
  writeFile(path: string, content: string | Uint8Array): Promise<{ readonly created: boolean; readonly path: string }>;
  /** Removes a regular file (not a folder). */
  removeFile(path: string): Promise<void>;
  /** Information about a path, or `undefined` when nothing exists there. */
  stat(path: string): Promise<WorkspaceStat | undefined>;
  /** The entries of a folder, sorted by name. */
  list(path: string): Promise<WorkspaceEntry[]>;
  /**
   * Files matching a glob pattern, as paths relative to the root, sorted. The pattern may come
   * from the model: it is matched in linear time, and one it cannot run is a `PatternError`.
   */
  glob(pattern: string, options?: WorkspaceGlobOptions): Promise<string[]>;
}
