import type { Redis } from 'ioredis';
import type { CostStore } from '../cost-limit/cost-store.js';
import { MiddlewareOptionError, checkKeys } from '../internal/option-error.js';

// Adds to a total and (re)sets its expiry in one step, so concurrent processes never lose an
// addition and a total never outlives its period. KEYS: total. ARGV: amount, ttl ms.
const ADD = `
local total = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return total`;

/**
 * Options of {@link RedisCostStore}.
 *
 * @example
 * ```ts
 * const options: RedisCostStoreOptions = { redis: new Redis(process.env.REDIS_URL!), prefix: 'myapp:cost:' };
 * ```
 */
export interface RedisCostStoreOptions {
  /** An ioredis client (yours: never closed here). */
  readonly redis: Redis;
  /** Prefix of the keys. Default `'rxscope:cost:'`. */
  readonly prefix?: string;
}

/**
 * A {@link CostStore} on Redis: per-user totals shared by every process that uses the same
 * Redis, kept across restarts, each key expiring at the end of its period. An addition is one
 * Lua script (`INCRBYFLOAT` then `PEXPIRE`), atomic against other processes.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { RedisCostStore } from '@rxscope/middleware-builtin/redis';
 *
 * const store = new RedisCostStore({ redis: new Redis(process.env.REDIS_URL!) });
 * const limits = new CostLimitMiddleware({ perUser: { amount: 5, per: 'day' }, prices, store });
 * ```
 */
export class RedisCostStore implements CostStore {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(options: RedisCostStoreOptions) {
    checkKeys('RedisCostStore', options ?? {}, ['redis', 'prefix']);
    if (!options?.redis || typeof options.redis.eval !== 'function')
      throw new MiddlewareOptionError('RedisCostStore needs an ioredis client (options.redis: new Redis(url)).');
    this.redis = options.redis;
    this.prefix = options.prefix ?? 'rxscope:cost:';
  }

  async add(key: string, amount: number, ttlMs: number): Promise<number> {
    const total = await this.redis.eval(
      ADD,
      1,
      this.prefix + key,
      String(amount),
      String(Math.max(1, Math.ceil(ttlMs))),
    );
    return Number(total);
  }

  async get(key: string): Promise<number> {
    return Number((await this.redis.get(this.prefix + key)) ?? 0);
  }
}
