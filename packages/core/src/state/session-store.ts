import type { AgentStateSnapshot } from './snapshot.js';
import { RxscopeError } from '../error/rxscope-error.js';
import type { JournalEntry, JournalRead, SessionJournal } from './journal.js';

/** A session as stored: the agent state and its version (incremented on every save). */
export interface StoredSession {
  readonly version: number;
  readonly state: AgentStateSnapshot;
}

/**
 * Where agents keep their state between replies and across processes. `save` is an optimistic
 * compare-and-set: it succeeds only when the stored version still equals `expectedVersion`
 * (0 for a session that must not exist yet), otherwise it rejects with a
 * {@link SessionConflictError} and changes nothing. The optional journal methods
 * ({@link SessionJournal}) let a reply checkpoint each step and continue after a crash.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, store: new InMemorySessionStore(), sessionId: 'user-42' });
 * ```
 */
export interface SessionStore extends SessionJournal {
  load(sessionId: string): Promise<StoredSession | undefined>;
  /** Resolves with the new version. */
  save(sessionId: string, state: AgentStateSnapshot, expectedVersion: number): Promise<number>;
  delete(sessionId: string): Promise<void>;
}

/**
 * Thrown when another writer saved the session since it was loaded.
 *
 * @example
 * ```ts
 * store.save(id, state, 3).catch((e) => { if (e instanceof SessionConflictError) console.log(e.actualVersion); });
 * ```
 */
export class SessionConflictError extends RxscopeError {
  override readonly name = 'SessionConflictError';
  readonly code = 'session_conflict';
  constructor(
    readonly sessionId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number,
  ) {
    super(
      `Session "${sessionId}" was saved by another writer (stored version ${actualVersion}, expected ${expectedVersion}); ` +
        'nothing was overwritten. Reload the session and retry.',
    );
  }
}

/**
 * Thrown when a stored session cannot be read (corrupt file, invalid state).
 *
 * @example
 * ```ts
 * await store.load('s1').catch((e) => e instanceof SessionStoreError && console.error(e.message));
 * ```
 */
export class SessionStoreError extends RxscopeError {
  override readonly name = 'SessionStoreError';
  readonly code = 'session_store';
}

/**
 * A {@link SessionStore} in memory (tests, single-process services). Stores deep copies.
 *
 * @example
 * ```ts
 * const store = new InMemorySessionStore();
 * const a = new Agent({ model, store, sessionId: 's1' });
 * ```
 */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, StoredSession>();
  private readonly journals = new Map<string, JournalEntry[]>();
  private readonly leases = new Map<string, { holder: string; until: number }>();

  load(sessionId: string): Promise<StoredSession | undefined> {
    const found = this.sessions.get(sessionId);
    return Promise.resolve(found ? structuredClone(found) : undefined);
  }

  save(sessionId: string, state: AgentStateSnapshot, expectedVersion: number): Promise<number> {
    const actual = this.sessions.get(sessionId)?.version ?? 0;
    if (actual !== expectedVersion) return Promise.reject(new SessionConflictError(sessionId, expectedVersion, actual));
    const version = actual + 1;
    this.sessions.set(sessionId, { version, state: structuredClone(state) });
    return Promise.resolve(version);
  }

  delete(sessionId: string): Promise<void> {
    this.sessions.delete(sessionId);
    this.journals.delete(sessionId);
    return Promise.resolve();
  }

  appendJournal(sessionId: string, entry: JournalEntry): Promise<void> {
    let journal = this.journals.get(sessionId);
    if (!journal) this.journals.set(sessionId, (journal = []));
    journal.push(structuredClone(entry));
    return Promise.resolve();
  }

  readJournal(sessionId: string, since = 0): Promise<JournalRead> {
    return Promise.resolve({ entries: structuredClone((this.journals.get(sessionId) ?? []).slice(since)) });
  }

  clearJournal(sessionId: string): Promise<void> {
    this.journals.delete(sessionId);
    return Promise.resolve();
  }

  listJournals(): Promise<string[]> {
    return Promise.resolve([...this.journals.keys()]);
  }

  acquireLease(sessionId: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const lease = this.leases.get(sessionId);
    if (lease && lease.holder !== holder && lease.until > now) return Promise.resolve(false);
    this.leases.set(sessionId, { holder, until: now + ttlMs });
    return Promise.resolve(true);
  }

  releaseLease(sessionId: string, holder: string): Promise<void> {
    if (this.leases.get(sessionId)?.holder === holder) this.leases.delete(sessionId);
    return Promise.resolve();
  }
}
