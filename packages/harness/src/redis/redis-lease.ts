import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { type HeldLease, type Lease, LeaseBusyError } from '../coordination/lease.js';
import { optionKeys } from '@rxscope/core';
import { HarnessOptionError, refuseUnknownOptions } from '../options/index.js';

/**
 * Options of {@link RedisLease}.
 *
 * @example
 * ```ts
 * const options: RedisLeaseOptions = { redis, prefix: 'rxscope:memory-lease:', ttlMs: 30_000 };
 * ```
 */
export interface RedisLeaseOptions {
  /** An ioredis client (yours: never closed here). */
  readonly redis: Redis;
  /** Prefix of the keys; the lease of `key` is `<prefix><key>`. Default `'rxscope:lease:'`. */
  readonly prefix?: string;
  /** A lease not renewed for this long expires (a crashed holder frees it). Default 30 s. */
  readonly ttlMs?: number;
  /** How often a held lease is renewed. Default a third of `ttlMs`. */
  readonly renewEveryMs?: number;
  /** How long `acquire` waits for a busy lease before it fails (unless the call says otherwise). Default 0: it fails at once. */
  readonly waitMs?: number;
  /** How often a waiting `acquire` tries again. Default 200 ms. */
  readonly retryEveryMs?: number;
}

// Renews (or releases) only a lease this owner still holds. KEYS: lease. ARGV: owner, ttl ms ('0': delete).
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '0' then redis.call('DEL', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

// Every option, typed against RedisLeaseOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<RedisLeaseOptions>({
  redis: true,
  prefix: true,
  ttlMs: true,
  renewEveryMs: true,
  waitMs: true,
  retryEveryMs: true,
});

/**
 * A {@link Lease} on Redis: a key per lease (`SET NX PX`), renewed by its holder every
 * `renewEveryMs` and expiring `ttlMs` after the last renewal, so a holder that dies frees it
 * within `ttlMs`. Renewal and release touch the key only while this holder owns it (a Lua
 * check-and-set). A second process gets a {@link LeaseBusyError} at once, or after waiting up to
 * `waitMs`. A holder that cannot renew for `ttlMs` (Redis unreachable) or finds the key taken
 * counts the lease as lost and tells its `onLost` listeners. `RedisSandboxLease` is one for
 * sessions' sandboxes; the harness's memory takes one for its detached work.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { RedisLease } from '@rxscope/harness/redis';
 *
 * const lease = new RedisLease({ redis: new Redis(process.env.REDIS_URL!), prefix: 'rxscope:memory-lease:' });
 * const agent = createHarnessAgent({ model, workspace: './ws', sessionId: 's1', memory: { lease } });
 * ```
 */
export class RedisLease implements Lease {
  private readonly redis: Redis;
  private readonly prefix: string;
  /** How long a lease lasts without renewal (for the messages of subclasses). */
  protected readonly ttlMs: number;
  private readonly renewEveryMs: number;
  private readonly waitMs: number;
  private readonly retryEveryMs: number;

  constructor(options: RedisLeaseOptions) {
    refuseUnknownOptions('RedisLease', options, OPTION_KEYS);
    if (!options?.redis || typeof options.redis.set !== 'function')
      throw new HarnessOptionError(
        'invalid_option',
        'RedisLease.redis',
        'RedisLease needs an ioredis client (options.redis: new Redis(url)).',
      );
    this.redis = options.redis;
    this.prefix = options.prefix ?? 'rxscope:lease:';
    this.ttlMs = Math.max(100, options.ttlMs ?? 30_000);
    this.renewEveryMs = Math.max(10, Math.min(options.renewEveryMs ?? this.ttlMs / 3, this.ttlMs / 2));
    this.waitMs = Math.max(0, options.waitMs ?? 0);
    this.retryEveryMs = Math.max(10, options.retryEveryMs ?? 200);
  }

  /**
   * The Redis key of a lease.
   *
   * @example
   * ```ts
   * await redis.get(lease.keyOf('flush:s1')); // the holder, or null
   * ```
   */
  keyOf(key: string): string {
    return `${this.prefix}${key}`;
  }

  async acquire(
    key: string,
    options: { readonly signal?: AbortSignal; readonly waitMs?: number } = {},
  ): Promise<HeldLease> {
    const redisKey = this.keyOf(key);
    const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    const deadline = Date.now() + Math.max(0, options.waitMs ?? this.waitMs);
    for (;;) {
      options.signal?.throwIfAborted();
      if ((await this.redis.set(redisKey, owner, 'PX', this.ttlMs, 'NX')) === 'OK') {
        if (!options.signal?.aborted) return this.held(key, redisKey, owner);
        await this.redis.eval(RENEW, 1, redisKey, owner, '0'); // the caller went away meanwhile
        options.signal.throwIfAborted();
      }
      if (Date.now() >= deadline) {
        const holder = await this.redis.get(redisKey);
        if (holder === null) continue; // it just expired or was released
        throw this.busy(key, holder);
      }
      await sleep(Math.min(this.retryEveryMs, Math.max(1, deadline - Date.now())), options.signal);
    }
  }

  /** The error for a busy lease (`lost`: a lease this process held and lost). */
  protected busy(key: string, holder: string | undefined, lost = false): LeaseBusyError {
    return new LeaseBusyError(
      key,
      holder,
      lost
        ? `The lease "${key}" was lost (not renewed within ${this.ttlMs} ms${holder ? `; now held by ${holder}` : ''}).`
        : undefined,
    );
  }

  private held(key: string, redisKey: string, owner: string): HeldLease {
    const listeners: ((error: LeaseBusyError) => void)[] = [];
    let lastRenewed = Date.now();
    let done = false;
    const lose = (holder: string | undefined) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      const error = this.busy(key, holder, true);
      for (const listener of listeners.splice(0)) listener(error);
    };
    const timer = setInterval(() => {
      this.redis.eval(RENEW, 1, redisKey, owner, this.ttlMs).then(
        async (ok) => {
          if (ok === 1) lastRenewed = Date.now();
          else lose((await this.redis.get(redisKey).catch(() => null)) ?? undefined);
        },
        () => {
          if (Date.now() - lastRenewed >= this.ttlMs) lose(undefined);
        },
      );
    }, this.renewEveryMs);
    timer.unref?.();
    return {
      key,
      owner,
      onLost: (listener) => void listeners.push(listener),
      release: async () => {
        if (done) return;
        done = true;
        clearInterval(timer);
        await this.redis.eval(RENEW, 1, redisKey, owner, '0');
      },
    };
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason instanceof Error ? signal!.reason : new Error(String(signal!.reason)));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
