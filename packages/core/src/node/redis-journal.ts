import { readJournalTexts, type JournalDamage, type JournalEntry, type JournalRead } from '../state/journal.js';
import { SessionStoreError } from '../state/session-store.js';
import type { RedisClient } from './redis/redis-client.js';

// KEYS: the journal list. ARGV: the entry, ttl seconds. One entry per RPUSH: a reader sees it whole or not at all.
const APPEND = `
redis.call('RPUSH', KEYS[1], ARGV[1])
local ttl = tonumber(ARGV[2])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return 1`;
const READ = `return redis.call('LRANGE', KEYS[1], 0, -1)`;
const TRIM = `redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[1])) return 1`;
// KEYS: the lease. ARGV: holder, ttl ms. Taken when free, expired (gone) or already the holder's.
const LEASE = `
local h = redis.call('GET', KEYS[1])
if h and h ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end return 1`;
// ARGV: the match pattern. Every key that matches (SCAN, so the server is never blocked for long).
const LIST = `
local cursor, keys = '0', {}
repeat
  local r = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 500)
  cursor = r[1]
  for _, k in ipairs(r[2]) do keys[#keys + 1] = k end
until cursor == '0'
return keys`;

/**
 * A session's journal as a Redis list (`<key>:journal`, one JSON entry per element, appended
 * with `RPUSH`: never rewritten, each entry whole or absent) and its reply lease as a key with
 * an expiry (`<key>:lease`). Used by `RedisSessionStore`.
 */
export class RedisJournal {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {}

  keyOf(sessionId: string): string {
    return `${this.prefix}${sessionId}:journal`;
  }

  async append(sessionId: string, entry: JournalEntry): Promise<void> {
    const key = this.keyOf(sessionId);
    await this.run(key, 'written to', APPEND, [key], [JSON.stringify(entry), this.ttlSeconds]);
  }

  async read(sessionId: string, since = 0): Promise<JournalRead> {
    const key = this.keyOf(sessionId);
    const texts = (await this.run(key, 'read from', READ, [key], [])) as string[];
    return readJournalTexts(texts, key, since);
  }

  /** Drops the entries from the damaged one on (`LTRIM`). */
  async repair(sessionId: string, damage: JournalDamage): Promise<void> {
    const key = this.keyOf(sessionId);
    await this.run(key, 'repaired in', TRIM, [key], [damage.entry - 1]);
  }

  async clear(sessionId: string): Promise<void> {
    const key = this.keyOf(sessionId);
    await this.redis.del(key).catch((e: unknown) => {
      throw new SessionStoreError(`The journal ${key} was not dropped (${(e as Error).message}).`, { cause: e });
    });
  }

  async list(): Promise<string[]> {
    const pattern = `${this.prefix.replace(/[*?[\]\\]/g, '\\$&')}*:journal`;
    const keys = (await this.run(pattern, 'listed in', LIST, [], [pattern])) as string[];
    return keys.map((k) => k.slice(this.prefix.length, -':journal'.length));
  }

  async acquireLease(sessionId: string, holder: string, ttlMs: number): Promise<boolean> {
    const key = `${this.prefix}${sessionId}:lease`;
    return (await this.run(key, 'taken in', LEASE, [key], [holder, Math.ceil(ttlMs)])) === 1;
  }

  async releaseLease(sessionId: string, holder: string): Promise<void> {
    const key = `${this.prefix}${sessionId}:lease`;
    await this.run(key, 'given up in', RELEASE, [key], [holder]);
  }

  private async run(
    key: string,
    what: string,
    script: string,
    keys: string[],
    args: (string | number)[],
  ): Promise<unknown> {
    try {
      return await this.redis.eval(script, keys.length, ...keys, ...args);
    } catch (e) {
      throw new SessionStoreError(`A checkpoint could not be ${what} Redis key ${key} (${(e as Error).message}).`, {
        cause: e,
      });
    }
  }
}
