import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  SessionConflictError,
  SessionStoreError,
  type SessionStore,
  type StoredSession,
} from '../state/session-store.js';
import { parseAgentState, type AgentStateSnapshot } from '../state/snapshot.js';
import { acquireFileLock, LockTimeoutError } from './file-lock.js';
import { SessionSaveError } from './session-save-error.js';
import { checkOptionKeys, optionKeys } from '../error/check-option-keys.js';
import { FileJournal } from './file-journal.js';
import type { JournalDamage, JournalEntry, JournalRead } from '../state/journal.js';

/** Options of {@link FileSessionStore}. */
export interface FileSessionStoreOptions {
  /** Directory holding one `<session>.json` per session (created if missing). */
  readonly dir: string;
  /** How long to wait for another writer's lock before failing. Default 5 s. */
  readonly lockTimeoutMs?: number;
  /**
   * Step checkpoints (`<session>.journal`, one JSON line per entry, appended): `true` (the
   * default) flushes each entry to the disk (`fdatasync`) before the step goes on, so a power
   * loss keeps every checkpoint the reply went past; `false` leaves it to the OS (a killed
   * process still keeps them, a power loss may lose the last ones).
   */
  readonly fsync?: boolean;
}

/** Names temporary files uniquely within this process (the pid tells processes apart). */
let tmpCounter = 0;

// Every option, typed against FileSessionStoreOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<FileSessionStoreOptions>({
  dir: true,
  lockTimeoutMs: true,
  fsync: true,
});

/**
 * A {@link SessionStore} on the file system, safe across processes: every save takes an
 * exclusive lock file, checks the stored version, writes a temporary file and renames it over
 * the session file (atomic: readers see the old or the new state, never a torn one). A lock left
 * by a dead process (crash, SIGKILL) is broken by exactly one contender, so optimistic versions
 * hold under any interleaving; a live holder's lock is never broken (a save then times out).
 * A save that fails is a {@link SessionSaveError} naming the session (nothing was written).
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
  private readonly journal: FileJournal;

  constructor(options: FileSessionStoreOptions) {
    checkOptionKeys('FileSessionStore', options, OPTION_KEYS, {
      foreign: { directory: 'dir', path: 'dir', folder: 'dir' },
    });
    if (typeof options.dir !== 'string' || options.dir === '')
      throw new SessionStoreError('FileSessionStore needs { dir }: the folder holding the session files.');
    this.dir = options.dir;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 5000;
    this.journal = new FileJournal(this.dir, options.fsync ?? true, this.lockTimeoutMs);
  }

  /** Path of a session's journal (its step checkpoints, one JSON line each). */
  journalOf(sessionId: string): string {
    return this.journal.fileOf(sessionId);
  }

  appendJournal(sessionId: string, entry: JournalEntry): Promise<void> {
    return this.journal.append(sessionId, entry);
  }

  readJournal(sessionId: string, since?: number): Promise<JournalRead> {
    return this.journal.read(sessionId, since);
  }

  clearJournal(sessionId: string): Promise<void> {
    return this.journal.clear(sessionId);
  }

  repairJournal(sessionId: string, damage: JournalDamage): Promise<void> {
    return this.journal.repair(sessionId, damage);
  }

  listJournals(): Promise<string[]> {
    return this.journal.list();
  }

  acquireLease(sessionId: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.journal.acquireLease(sessionId, holder, ttlMs);
  }

  releaseLease(sessionId: string, holder: string): Promise<void> {
    return this.journal.releaseLease(sessionId, holder);
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
      throw new SessionStoreError(`Session "${sessionId}" could not be read from ${file} (${(e as Error).message}).`, {
        cause: e,
      });
    }
    return parseStored(file, text);
  }

  async save(sessionId: string, state: AgentStateSnapshot, expectedVersion: number): Promise<number> {
    const notSaved = (reason: string, cause: unknown) =>
      new SessionSaveError('session_not_saved', sessionId, reason, { cause });
    // Once per store: a directory removed later is made again when taking the lock finds it missing.
    this.madeDir ??= mkdir(this.dir, { recursive: true }).then(() => undefined);
    try {
      await this.madeDir;
    } catch (e) {
      this.madeDir = undefined;
      throw notSaved(`creating the folder ${this.dir} failed (${(e as Error).message}).`, e);
    }
    const file = this.fileOf(sessionId);
    const release = await this.lock(sessionId, file);
    try {
      const actual = await this.versionOf(file).catch((e: unknown) => {
        throw notSaved(`reading its stored version from ${file} failed (${(e as Error).message}).`, e);
      });
      if (actual !== expectedVersion) throw new SessionConflictError(sessionId, expectedVersion, actual);
      const version = actual + 1;
      const tmp = `${file}.${process.pid}.${(tmpCounter = (tmpCounter + 1) % 0x7fffffff).toString(36)}.tmp`;
      try {
        await writeFile(tmp, JSON.stringify({ version, state }), { flag: 'wx' });
        await rename(tmp, file);
      } catch (e) {
        await rm(tmp, { force: true }).catch(() => undefined);
        throw notSaved(`writing ${file} failed (${(e as Error).message}).`, e);
      }
      return version;
    } finally {
      // A lock that cannot be removed is taken for a left-over one by the next writer of this
      // process (its nonce is released), and by others once this process is gone.
      await release().catch(() => undefined);
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
    const file = this.fileOf(sessionId);
    try {
      await rm(file, { force: true });
      await this.journal.clear(sessionId);
    } catch (e) {
      throw new SessionStoreError(
        `Session "${sessionId}" was not deleted: removing ${file} failed (${(e as Error).message}).`,
        {
          cause: e,
        },
      );
    }
  }

  /** Takes the session's lock (see file-lock.ts), making the folder again when it was removed. */
  private async lock(sessionId: string, file: string): Promise<() => Promise<void>> {
    const lockFile = `${file}.lock`;
    try {
      return await acquireFileLock(lockFile, this.lockTimeoutMs).catch(async (e: unknown) => {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        await mkdir(this.dir, { recursive: true });
        return acquireFileLock(lockFile, this.lockTimeoutMs);
      });
    } catch (e) {
      if (e instanceof LockTimeoutError)
        throw new SessionSaveError('session_lock_timeout', sessionId, e.message, { cause: e });
      throw new SessionSaveError(
        'session_not_saved',
        sessionId,
        `taking the lock ${lockFile} failed (${(e as Error).message}).`,
        {
          cause: e,
        },
      );
    }
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
