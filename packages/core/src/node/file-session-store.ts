import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  SessionConflictError,
  SessionStoreError,
  type SessionStore,
  type StoredSession,
} from '../state/session-store.js';
import { parseAgentState, type AgentStateSnapshot } from '../state/snapshot.js';

/** Options of {@link FileSessionStore}. */
export interface FileSessionStoreOptions {
  /** Directory holding one `<session>.json` per session (created if missing). */
  readonly dir: string;
  /** How long to wait for another writer's lock before failing. Default 5 s. */
  readonly lockTimeoutMs?: number;
}

/** Names temporary files uniquely within this process (the pid tells processes apart). */
let tmpCounter = 0;

/**
 * A {@link SessionStore} on the file system, safe across processes: every save takes an
 * exclusive lock file, checks the stored version, writes a temporary file and renames it over
 * the session file (atomic: readers see the old or the new state, never a torn one). A lock left
 * by a dead process (crash, SIGKILL) is taken over.
 *
 * @example
 * ```ts
 * import { FileSessionStore } from '@rxscope/core/node';
 * const store = new FileSessionStore({ dir: './sessions' });
 * const agent = new Agent({ model, store, sessionId: 'user-42' });
 * ```
 */
export class FileSessionStore implements SessionStore {
  private readonly dir: string;
  private readonly lockTimeoutMs: number;
  private madeDir: Promise<void> | undefined;

  constructor(options: FileSessionStoreOptions) {
    this.dir = options.dir;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 5000;
  }

  /** Path of a session's file. */
  fileOf(sessionId: string): string {
    return join(this.dir, `${encodeURIComponent(sessionId)}.json`);
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const file = this.fileOf(sessionId);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    return parseStored(file, text);
  }

  async save(sessionId: string, state: AgentStateSnapshot, expectedVersion: number): Promise<number> {
    // Once per store: a directory removed later is made again when taking the lock finds it missing.
    this.madeDir ??= mkdir(this.dir, { recursive: true }).then(() => undefined);
    try {
      await this.madeDir;
    } catch (e) {
      this.madeDir = undefined;
      throw e;
    }
    const file = this.fileOf(sessionId);
    const release = await this.lock(file).catch(async (e: unknown) => {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      await mkdir(this.dir, { recursive: true });
      return this.lock(file);
    });
    try {
      const actual = await this.versionOf(file);
      if (actual !== expectedVersion) throw new SessionConflictError(sessionId, expectedVersion, actual);
      const version = actual + 1;
      const tmp = `${file}.${process.pid}.${(tmpCounter = (tmpCounter + 1) % 0x7fffffff).toString(36)}.tmp`;
      const text = JSON.stringify({ version, state });
      await writeFile(tmp, text, { flag: 'wx' });
      await rename(tmp, file);
      return version;
    } finally {
      await release();
    }
  }

  /**
   * The stored version of a session file, 0 when there is none. Saving only needs the version:
   * it is read from the start of the file this store writes (`{"version":N,"state":…}`) rather
   * than by parsing and validating the whole session (most of a save's time at 1,000 messages).
   * A file that starts otherwise is read whole, as `load` reads it.
   */
  private async versionOf(file: string): Promise<number> {
    let handle;
    try {
      handle = await open(file, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw e;
    }
    try {
      const head = Buffer.alloc(64);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      const found = /^\{"version":([1-9]\d{0,14}),"state":/.exec(head.toString('utf8', 0, bytesRead));
      if (found) return Number(found[1]);
      return parseStored(file, await readFile(file, 'utf8')).version;
    } finally {
      await handle.close();
    }
  }

  async delete(sessionId: string): Promise<void> {
    await rm(this.fileOf(sessionId), { force: true });
  }

  private async lock(file: string): Promise<() => Promise<void>> {
    const lockFile = `${file}.lock`;
    const deadline = Date.now() + this.lockTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        const handle = await open(lockFile, 'wx');
        await handle.writeFile(JSON.stringify({ pid: process.pid, at: Date.now() }));
        await handle.close();
        return () => rm(lockFile, { force: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        if (await isStale(lockFile)) {
          await rm(lockFile, { force: true });
          continue;
        }
        if (Date.now() > deadline) {
          throw new SessionStoreError(
            `Timed out after ${this.lockTimeoutMs} ms waiting for the lock ${lockFile} held by another writer.`,
          );
        }
        await new Promise((r) => setTimeout(r, Math.min(50, 5 * (attempt + 1))));
      }
    }
  }
}

async function isStale(lockFile: string): Promise<boolean> {
  try {
    const { pid, at } = JSON.parse(await readFile(lockFile, 'utf8')) as { pid?: number; at?: number };
    if (typeof pid === 'number' && pid !== process.pid) {
      try {
        process.kill(pid, 0);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ESRCH') return true; // the holder died
      }
    }
    return typeof at === 'number' && Date.now() - at > 30_000;
  } catch {
    // Unreadable or half-written lock: stale only if old (a writer may be writing it right now).
    const info = await stat(lockFile).catch(() => undefined);
    return info !== undefined && Date.now() - info.mtimeMs > 2_000;
  }
}

function parseStored(file: string, text: string): StoredSession {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new SessionStoreError(`Session file ${file} is not valid JSON (${(e as Error).message}).`);
  }
  const version = (raw as { version?: unknown } | null)?.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new SessionStoreError(`Session file ${file} has no valid "version".`);
  }
  try {
    return { version, state: parseAgentState((raw as { state?: unknown }).state) };
  } catch (e) {
    throw new SessionStoreError(`Session file ${file}: ${(e as Error).message}`);
  }
}
