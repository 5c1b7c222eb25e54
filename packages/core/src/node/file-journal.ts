import { mkdir, open, readdir, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { readJournalTexts, type JournalDamage, type JournalEntry, type JournalRead } from '../state/journal.js';
import { SessionStoreError } from '../state/session-store.js';
import { acquireFileLock } from './file-lock.js';

/**
 * A session's journal as a file of JSON lines beside its session file, appended to (never
 * rewritten), and the session's reply lease as a small file taken under a lock file. Used by
 * `FileSessionStore`.
 */
export class FileJournal {
  constructor(
    private readonly dir: string,
    /** `true`: every append is flushed to the disk (`fdatasync`) before it resolves. */
    private readonly fsync: boolean,
    private readonly lockTimeoutMs: number,
  ) {}

  /** The journal file of a session. */
  fileOf(sessionId: string): string {
    return `${this.dir}/${encodeURIComponent(sessionId)}.journal`;
  }

  async append(sessionId: string, entry: JournalEntry): Promise<void> {
    const file = this.fileOf(sessionId);
    const line = `${JSON.stringify(entry)}\n`;
    let handle;
    try {
      handle = await open(file, 'a').catch(async (e: unknown) => {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        await mkdir(this.dir, { recursive: true });
        return open(file, 'a');
      });
      await handle.write(line);
      if (this.fsync) await handle.datasync();
    } catch (e) {
      throw new SessionStoreError(
        `The checkpoint of session "${sessionId}" was not written to ${file} (${(e as Error).message}).`,
        { cause: e },
      );
    } finally {
      await handle?.close();
    }
  }

  /**
   * The entries from `since`; a last line without its end of line (a write cut off by a crash)
   * or a line that is not a whole entry ends the read, reported as `damaged`.
   */
  async read(sessionId: string, since = 0): Promise<JournalRead> {
    const file = this.fileOf(sessionId);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [] };
      throw new SessionStoreError(`The journal ${file} could not be read (${(e as Error).message}).`, { cause: e });
    }
    const lines = text.split('\n');
    const tail = lines.pop()!;
    const read = readJournalTexts(lines, file, since);
    if (read.damaged || tail === '') return read;
    const damaged: JournalDamage = {
      where: file,
      entry: lines.length,
      reason: `its last ${tail.length} bytes are an entry cut off before its end (a write interrupted by a crash)`,
    };
    return { ...read, damaged };
  }

  /** Truncates the file to its first `damage.entry` lines (the whole entries before the damage). */
  async repair(sessionId: string, damage: JournalDamage): Promise<void> {
    const file = this.fileOf(sessionId);
    const text = await readFile(file, 'utf8');
    let end = 0;
    for (let i = 0; i < damage.entry; i++) end = text.indexOf('\n', end) + 1;
    await truncate(file, Buffer.byteLength(text.slice(0, end)));
  }

  async clear(sessionId: string): Promise<void> {
    await rm(this.fileOf(sessionId), { force: true });
  }

  async list(): Promise<string[]> {
    const names = await readdir(this.dir).catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [] as string[];
      throw e;
    });
    return names.filter((n) => n.endsWith('.journal')).map((n) => decodeURIComponent(n.slice(0, -'.journal'.length)));
  }

  /** Takes or renews the lease: true when it was free, expired, or `holder`'s. */
  async acquireLease(sessionId: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.underLeaseLock(sessionId, async (file) => {
      const now = Date.now();
      const lease = await readLease(file);
      if (lease && lease.holder !== holder && lease.until > now) return false;
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify({ holder, until: now + ttlMs }));
      await rename(tmp, file);
      return true;
    });
  }

  async releaseLease(sessionId: string, holder: string): Promise<void> {
    await this.underLeaseLock(sessionId, async (file) => {
      if ((await readLease(file))?.holder === holder) await rm(file, { force: true });
      return true;
    });
  }

  private async underLeaseLock(sessionId: string, work: (file: string) => Promise<boolean>): Promise<boolean> {
    const file = `${this.dir}/${encodeURIComponent(sessionId)}.lease`;
    await mkdir(this.dir, { recursive: true });
    const release = await acquireFileLock(`${file}.lock`, this.lockTimeoutMs);
    try {
      return await work(file);
    } finally {
      await release().catch(() => undefined);
    }
  }
}

/** The lease in a lease file; a file that cannot be read as one counts as no lease. */
async function readLease(file: string): Promise<{ holder: string; until: number } | undefined> {
  try {
    const lease = JSON.parse(await readFile(file, 'utf8')) as { holder?: unknown; until?: unknown };
    return typeof lease.holder === 'string' && typeof lease.until === 'number'
      ? { holder: lease.holder, until: lease.until }
      : undefined;
  } catch {
    return undefined;
  }
}
