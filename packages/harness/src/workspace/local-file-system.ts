import { constants, realpathSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, realpath, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { aBoolean, aString, checkOptions, integerAtLeast } from '../options/index.js';
import { compileGlob } from '../search/index.js';
import { readUpTo } from './bounded-read.js';
import { FileTooLargeError } from './file-too-large-error.js';
import { ensureWorkspace } from './layout.js';
import { globLocal } from './local-glob.js';
import {
  DEFAULT_MAX_READ_BYTES,
  type WorkspaceEntry,
  type WorkspaceFileSystem,
  type WorkspaceGlobOptions,
  type WorkspaceReadOptions,
  type WorkspaceStat,
} from './workspace-file-system.js';
import { WorkspacePathError } from './workspace-path-error.js';

/** Longest file name (one path segment) Linux accepts, in bytes. */
const NAME_MAX = 255;
/** Longest path Linux accepts, in bytes. */
const PATH_MAX = 4096;
/** Symlinks followed while resolving one path before giving up (as the kernel's ELOOP). */
const MAX_LINKS = 40;

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_WRONLY, O_CREAT, O_EXCL } = constants;

/**
 * The workspace on the local disk, confined to its root (see {@link WorkspaceFileSystem}).
 *
 * How confinement holds: every path is resolved to its real path (symlinks followed, also
 * dangling ones and ones in the middle of the path) and must lie inside the root's real path;
 * special files are refused before they are opened; a file is opened without following a
 * final symlink, then the opened descriptor's own path (`/proc/self/fd`) is checked again, so a
 * symlink swapped in between the check and the open (a shell running alongside) is caught;
 * writes go to a temporary file beside the target and are renamed over it, so a hard link or a
 * symlink in place of the target never redirects the write.
 *
 * What holds the model's choices in bounds: a read stops one byte past its `maxBytes` (default
 * 64 MiB) whatever the file's size said, and a glob is matched in linear time (see
 * `compileGlob`), the crawl leaving the event loop free.
 *
 * @example
 * ```ts
 * const fs = new LocalFileSystem('./ws');          // created with its layout when missing
 * await fs.writeFile('src/app.ts', 'export {};\n');
 * await fs.readFile('../etc/passwd');              // throws WorkspacePathError (outside_workspace)
 * ```
 */
export class LocalFileSystem implements WorkspaceFileSystem {
  readonly root: string;

  constructor(root: string, options: { readonly createLayout?: boolean } = {}) {
    this.root = options.createLayout === false ? resolveRoot(root) : ensureWorkspace(root);
  }

  async resolve(path: string): Promise<string> {
    return this.relativeOf(await this.confine(path));
  }

  async readFile(path: string, options: WorkspaceReadOptions = {}): Promise<Uint8Array> {
    checkOptions('readFile', options, { maxBytes: integerAtLeast(0), truncate: aBoolean });
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
    const real = await this.confine(path);
    await this.assertKind(path, real, 'file');
    const handle = await this.openChecked(path, real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw this.kindError(path, st, 'file');
      // The size says at once when a file is too large (a sparse 1 GB file is never read);
      // the read is bounded too, for a file that grows after this.
      if (st.size > maxBytes && !options.truncate) throw new FileTooLargeError({ path, maxBytes, size: st.size });
      const { bytes, more } = await readUpTo(handle, maxBytes, st.size);
      if (more && !options.truncate) throw new FileTooLargeError({ path, maxBytes });
      return bytes;
    } finally {
      await handle.close();
    }
  }

  async writeFile(path: string, content: string | Uint8Array): Promise<{ created: boolean; path: string }> {
    const real = await this.confine(path);
    if (real === this.root)
      throw new WorkspacePathError('not_a_file', path, `"${path}" is the workspace folder, not a file.`);
    const existing = await lstat(real).catch(() => undefined);
    if (existing && !existing.isFile()) throw this.kindError(path, existing, 'file');
    const parent = dirname(real);
    await this.makeFolders(path, parent);
    // Write beside the target and rename over it: never through a link, never half-written.
    const temp = join(
      parent,
      `.${basenameOf(real)}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`,
    );
    const handle = await this.openChecked(
      path,
      temp,
      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
      existing ? existing.mode & 0o777 : 0o644,
    );
    try {
      await handle.writeFile(content);
    } catch (e) {
      await handle.close();
      await unlink(temp).catch(() => undefined);
      throw e;
    }
    await handle.close();
    try {
      // The folder may have been swapped for a link since it was checked: check it again.
      if (!this.inside(await realpath(parent))) throw this.outside(path, 'symlink_outside');
      await rename(temp, real);
    } catch (e) {
      await unlink(temp).catch(() => undefined);
      throw e;
    }
    return { created: !existing, path: this.relativeOf(real) };
  }

  async removeFile(path: string): Promise<void> {
    const real = await this.confine(path);
    await this.assertKind(path, real, 'file');
    await unlink(real);
  }

  async stat(path: string): Promise<WorkspaceStat | undefined> {
    const real = await this.confine(path);
    const st = await lstat(real).catch(() => undefined);
    if (!st) return undefined;
    if (!st.isFile() && !st.isDirectory()) throw this.kindError(path, st, 'file');
    return {
      path: this.relativeOf(real),
      type: st.isFile() ? 'file' : 'directory',
      size: st.size,
      mtimeMs: st.mtimeMs,
    };
  }

  async list(path: string): Promise<WorkspaceEntry[]> {
    const real = await this.confine(path);
    await this.assertKind(path, real, 'directory');
    const entries = await readdir(real, { withFileTypes: true });
    const out: WorkspaceEntry[] = [];
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const rel = this.relativeOf(join(real, entry.name));
      if (entry.isFile()) {
        const size = await lstat(join(real, entry.name)).then(
          (s) => s.size,
          () => 0,
        );
        out.push({ path: rel, type: 'file', size });
      } else if (entry.isDirectory()) out.push({ path: rel, type: 'directory' });
      else if (entry.isSymbolicLink()) out.push({ path: rel, type: 'symlink' });
      else out.push({ path: rel, type: 'other' });
    }
    return out;
  }

  async glob(pattern: string, options: WorkspaceGlobOptions = {}): Promise<string[]> {
    checkOptions('glob', options, { cwd: aString, respectGitignore: aBoolean, limit: integerAtLeast(1) });
    if (typeof pattern !== 'string' || pattern.trim() === '') {
      throw new WorkspacePathError('invalid_path', String(pattern), 'The glob pattern is empty; use e.g. "**/*.ts".');
    }
    checkText(pattern);
    if (isAbsolute(pattern) || pattern.split('/').includes('..')) {
      throw new WorkspacePathError(
        'outside_workspace',
        pattern,
        `The glob pattern "${pattern}" must be relative to the workspace and must not contain "..": it matches inside the workspace only.`,
      );
    }
    const compiled = compileGlob(pattern);
    const cwd = await this.confine(options.cwd ?? '.');
    await this.assertKind(options.cwd ?? '.', cwd, 'directory');
    return globLocal(
      {
        root: this.root,
        cwd,
        confine: (p) => this.confine(p),
        inside: (a) => this.inside(a),
        relativeOf: (a) => this.relativeOf(a),
      },
      compiled,
      { limit: options.limit ?? 10_000, respectGitignore: options.respectGitignore !== false },
    );
  }

  // --- confinement ------------------------------------------------------------------------------

  /** The real absolute path of `path`, checked to lie inside the root. */
  private async confine(path: string): Promise<string> {
    if (typeof path !== 'string')
      throw new WorkspacePathError('invalid_path', String(path), 'A path must be a string.');
    checkText(path);
    this.checkStyle(path);
    const trimmed = path.trim() === '' ? '.' : path;
    const lexical = resolve(this.root, trimmed);
    if (!this.inside(lexical)) throw this.outside(path, 'outside_workspace');
    const real = await realpathLoose(lexical, 0);
    if (!this.inside(real)) throw this.outside(path, 'symlink_outside');
    return real;
  }

  /**
   * Paths written for another system are refused with a clear error instead of being taken
   * literally as names inside the workspace (where the model would not find what it meant):
   * a URL (`file:///etc/passwd`), `\` (a Windows separator: `..\x`), a leading `~` (no home folder is expanded) and
   * URL-encoding that decodes to a way out (`%2e%2e%2f` is `../`; other `%xx` stay literal).
   */
  private checkStyle(path: string): void {
    const refuse = (why: string) =>
      new WorkspacePathError(
        'invalid_path',
        path,
        `"${path}" ${why}. Paths are relative to the workspace root (${this.root}), with "/" between folders.`,
      );
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) throw refuse('is a URL; give a path');
    if (path.includes('\\')) throw refuse('contains "\\"; folders are separated by "/"');
    if (/^~(\/|$)|^~[\w.-]+\//.test(path)) throw refuse('starts with "~", which is not expanded to a home folder');
    if (/%[0-9a-f]{2}/i.test(path)) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(path);
      } catch {
        return; // not URL-encoding: a literal name
      }
      if (/[\0\\]/.test(decoded) || isAbsolute(decoded) || decoded.startsWith('~') || decoded.split('/').includes('..'))
        throw refuse(`is URL-encoded ("${decoded.replace(/\0/g, '\\0')}"); names are taken literally, never decoded`);
    }
  }

  private inside(absolute: string): boolean {
    return absolute === this.root || absolute.startsWith(this.root + sep);
  }

  private relativeOf(absolute: string): string {
    const rel = relative(this.root, absolute);
    return rel === '' ? '.' : rel.split(sep).join('/');
  }

  private outside(path: string, code: 'outside_workspace' | 'symlink_outside'): WorkspacePathError {
    return new WorkspacePathError(
      code,
      path,
      code === 'outside_workspace'
        ? `"${path}" is outside the workspace. Paths are relative to the workspace root (${this.root}); nothing outside it can be read or written.`
        : `"${path}" leads outside the workspace through a symbolic link; nothing outside the workspace can be read or written.`,
    );
  }

  private kindError(path: string, st: Stats, wanted: 'file' | 'directory'): WorkspacePathError {
    // A real path that is a link: it was swapped in after it was resolved.
    if (st.isSymbolicLink()) return this.outside(path, 'symlink_outside');
    if (st.isFile() || st.isDirectory()) {
      return new WorkspacePathError(
        wanted === 'file' ? 'not_a_file' : 'not_a_directory',
        path,
        `"${path}" is a ${st.isFile() ? 'file' : 'folder'}, not a ${wanted === 'file' ? 'file' : 'folder'}.`,
      );
    }
    const kind =
      st.isCharacterDevice() || st.isBlockDevice()
        ? 'device file'
        : st.isFIFO()
          ? 'named pipe'
          : st.isSocket()
            ? 'socket'
            : 'special file';
    return new WorkspacePathError(
      'special_file',
      path,
      `"${path}" is a ${kind}; only regular files and folders can be used.`,
    );
  }

  private async assertKind(path: string, real: string, wanted: 'file' | 'directory'): Promise<void> {
    const st = await lstat(real).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
      throw e;
    });
    if (!st) {
      throw new WorkspacePathError('not_found', path, `"${path}" does not exist in the workspace.`);
    }
    if (wanted === 'file' ? !st.isFile() : !st.isDirectory()) throw this.kindError(path, st, wanted);
  }

  /** Opens without following a final link, then checks where the descriptor really points. */
  private async openChecked(path: string, real: string, flags: number, mode?: number): Promise<FileHandle> {
    let handle: FileHandle;
    try {
      handle = await open(real, flags, mode);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw this.outside(path, 'symlink_outside');
      if (code === 'ENOENT')
        throw new WorkspacePathError('not_found', path, `"${path}" does not exist in the workspace.`);
      throw e;
    }
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (opened !== undefined && !this.inside(opened)) {
      await handle.close();
      throw this.outside(path, 'symlink_outside');
    }
    return handle;
  }

  /** Creates missing folders one by one, each checked to stay inside. */
  private async makeFolders(path: string, folder: string): Promise<void> {
    const missing: string[] = [];
    let current = folder;
    while (
      !(await lstat(current).then(
        () => true,
        () => false,
      ))
    ) {
      missing.unshift(current);
      current = dirname(current);
    }
    const st = await lstat(current);
    if (!st.isDirectory()) throw this.kindError(path, st, 'directory');
    for (const dir of missing) {
      await mkdir(dir).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
      if (!this.inside(await realpath(dir))) throw this.outside(path, 'symlink_outside');
    }
  }
}

/** NUL bytes and names longer than the file system allows are refused before anything else. */
function checkText(path: string): void {
  if (path.includes('\0'))
    throw new WorkspacePathError(
      'nul_byte',
      path.replace(/\0/g, '\\0'),
      'The path contains a NUL byte, which no file name can hold.',
    );
  if (Buffer.byteLength(path) > PATH_MAX) {
    throw new WorkspacePathError(
      'path_too_long',
      path.slice(0, 80) + '…',
      `The path is ${Buffer.byteLength(path)} bytes long; at most ${PATH_MAX} are allowed.`,
    );
  }
  for (const segment of path.split(/[\\/]/)) {
    if (Buffer.byteLength(segment) > NAME_MAX) {
      throw new WorkspacePathError(
        'name_too_long',
        path.slice(0, 80) + '…',
        `The name "${segment.slice(0, 40)}…" is ${Buffer.byteLength(segment)} bytes long; a file name may have at most ${NAME_MAX}.`,
      );
    }
  }
}

/**
 * The real path of `path`, also when its end does not exist yet: the longest existing part is
 * resolved by the system, and a dangling symlink is followed to where it would create a file.
 */
async function realpathLoose(path: string, links: number): Promise<string> {
  try {
    return await realpath(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
  }
  const st = await lstat(path).catch(() => undefined);
  if (st?.isSymbolicLink()) {
    if (links >= MAX_LINKS)
      throw new WorkspacePathError('invalid_path', path, `Too many levels of symbolic links at "${path}".`);
    const target = await readlink(path);
    return realpathLoose(resolve(dirname(path), target), links + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await realpathLoose(parent, links), basenameOf(path));
}

function basenameOf(path: string): string {
  return path.slice(path.lastIndexOf(sep) + 1);
}

function resolveRoot(root: string): string {
  if (typeof root !== 'string' || root.trim() === '') throw new TypeError('The workspace root must be a folder path.');
  return realpathSync(resolve(root));
}
