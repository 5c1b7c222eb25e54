import type { RedisClient } from './redis/redis-client.js';
import {
  SessionConflictError,
  SessionStoreError,
  type SessionStore,
  type StoredSession,
} from '../state/session-store.js';
import { parseAgentState, type AgentStateSnapshot } from '../state/snapshot.js';
import { SessionSaveError } from './session-save-error.js';
import { checkOptionKeys, optionKeys } from '../error/check-option-keys.js';
import { RedisJournal } from './redis-journal.js';
import type { JournalDamage, JournalEntry, JournalRead } from '../state/journal.js';

/** Options of {@link RedisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** An ioredis client (yours: the store never closes it). */
  readonly redis: RedisClient;
  /** Prefix of every key. Default `'rxscope:store:'`; a session is the hash `<prefix><sessionId>`. */
  readonly prefix?: string;
  /** A session expires this long after its last save. `0` (the default) keeps it until `delete`. */
  readonly ttlSeconds?: number;
}

// Compare-and-set in one step on the server: the stored version must equal the expected one
// (0: the session must not exist), then the state is written with the next version.
// KEYS: the session hash. ARGV: expected version, state json, ttl seconds.
// Returns {1, new version} or {0, stored version}.
const SAVE = `
local actual = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if actual ~= tonumber(ARGV[1]) then return {0, actual} end
local version = actual + 1
redis.call('HSET', KEYS[1], 'version', version, 'state', ARGV[2])
local ttl = tonumber(ARGV[3])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) else redis.call('PERSIST', KEYS[1]) end
return {1, version}`;

// Every option, typed against RedisSessionStoreOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<RedisSessionStoreOptions>({
  redis: true,
  prefix: true,
  ttlSeconds: true,
});

/**
 * A {@link SessionStore} on Redis, for services whose replies run in several processes or on
 * several machines: a reply suspended in one process resumes in another that shares the Redis.
 * Each session is a hash (`<prefix><sessionId>` with `version` and `state`); `save` is an
 * optimistic compare-and-set done by one Lua script, so two writers of one session never both
 * win, whichever process they run in, and a stale writer gets a {@link SessionConflictError}
 * and overwrites nothing. A stored state is validated when loaded (a bad one is a
 * {@link SessionStoreError} naming the key). A save that fails is a {@link SessionSaveError}
 * naming the session and saying whether the write may have run. Uses ioredis (an optional peer dependency).
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { RedisSessionStore } from '@rxscope/core/node';
 *
 * const store = new RedisSessionStore({ redis: new Redis(process.env.REDIS_URL!) });
 * const agent = new Agent({ model, store, sessionId: 'user-42' });
 * ```
 */
export class RedisSessionStore implements SessionStore {
  private readonly redis: RedisClient;
  private readonly prefix: string;
  private readonly ttlSeconds: number;
  private readonly journal: RedisJournal;

  constructor(options: RedisSessionStoreOptions) {
    checkOptionKeys('RedisSessionStore', options, OPTION_KEYS, {
      foreign: { client: 'redis', keyPrefix: 'prefix', ttl: 'ttlSeconds' },
    });
    this.redis = options.redis;
    this.prefix = options.prefix ?? 'rxscope:store:';
    this.ttlSeconds = Math.max(0, Math.floor(options.ttlSeconds ?? 0));
    this.journal = new RedisJournal(this.redis, this.prefix, this.ttlSeconds);
  }

  /** The Redis list of a session's step checkpoints (`<prefix><sessionId>:journal`). */
  journalKeyOf(sessionId: string): string {
    return this.journal.keyOf(sessionId);
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

  /**
   * The Redis key of a session.
   *
   * @example
   * ```ts
   * new RedisSessionStore({ redis }).keyOf('s1'); // 'rxscope:store:s1'
   * ```
   */
  keyOf(sessionId: string): string {
    return `${this.prefix}${sessionId}`;
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const key = this.keyOf(sessionId);
    const [version, state] = await this.redis.hmget(key, 'version', 'state').catch((e: unknown) => {
      throw new SessionStoreError(
        `Session "${sessionId}" could not be read from Redis key ${key} (${(e as Error).message}).`,
        {
          cause: e,
        },
      );
    });
    if (version == null && state == null) return undefined;
    return parseStored(key, version ?? null, state ?? null);
  }

  async save(sessionId: string, state: AgentStateSnapshot, expectedVersion: number): Promise<number> {
    const key = this.keyOf(sessionId);
    // ioredis queues a command while it is not connected and sends it on reconnection: a command
    // given to a client that is not ready and then failed was never sent. One given to a ready
    // client that fails other than by the server's answer may have run.
    const sent = this.redis.status === undefined || this.redis.status === 'ready';
    let result: unknown;
    try {
      result = await this.redis.eval(SAVE, 1, key, expectedVersion, JSON.stringify(state), this.ttlSeconds);
    } catch (e) {
      throw saveError(sessionId, key, e, sent);
    }
    const [ok, version] = result as [number, number];
    if (ok !== 1) throw new SessionConflictError(sessionId, expectedVersion, version);
    return version;
  }

  async delete(sessionId: string): Promise<void> {
    const key = this.keyOf(sessionId);
    await this.redis.del(key, this.journal.keyOf(sessionId)).catch((e: unknown) => {
      throw new SessionStoreError(
        `Session "${sessionId}" was not deleted from Redis key ${key} (${(e as Error).message}).`,
        {
          cause: e,
        },
      );
    });
  }
}

/** The error of a failed save: whether the write may have run decides its code. */
function saveError(sessionId: string, key: string, e: unknown, sent: boolean): SessionSaveError {
  const message = (e as Error).message;
  // The server's own refusal (an error reply: out of memory, a read-only replica): the script did not write.
  if ((e as Error).name === 'ReplyError') {
    return new SessionSaveError('session_not_saved', sessionId, `Redis refused the write to ${key} (${message}).`, {
      cause: e,
    });
  }
  if (!sent) {
    return new SessionSaveError(
      'session_not_saved',
      sessionId,
      `Redis could not be reached, and the write to ${key} was never sent (${message}).`,
      { cause: e },
    );
  }
  return new SessionSaveError(
    'session_save_unknown',
    sessionId,
    `the connection to Redis failed after the write to ${key} was sent, before its answer came (${message}).`,
    { cause: e },
  );
}

function parseStored(key: string, versionText: string | null, stateText: string | null): StoredSession {
  const version = Number(versionText);
  if (versionText === null || !Number.isInteger(version) || version < 1) {
    throw new SessionStoreError(`Session key ${key} has no valid "version".`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(stateText ?? '');
  } catch (e) {
    throw new SessionStoreError(`Session key ${key} holds a state that is not valid JSON (${(e as Error).message}).`);
  }
  try {
    return { version, state: parseAgentState(raw) };
  } catch (e) {
    throw new SessionStoreError(`Session key ${key}: ${(e as Error).message}`);
  }
}
