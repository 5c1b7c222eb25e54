import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { SandboxBusyError, type HeldSandboxLease, type SandboxLease } from '../sandbox/sandbox-lease.js';

/** Options of {@link RedisSandboxLease}. */
export interface RedisSandboxLeaseOptions {
  /** An ioredis client (yours: never closed here). */
  readonly redis: Redis;
  /** Prefix of the keys; a session's lease is `<prefix><sessionId>`. Default `'rxscope:sandbox-lease:'`. */
  readonly prefix?: string;
  /** A lease not renewed for this long expires (a crashed holder frees it). Default 30 s. */
  readonly ttlMs?: number;
  /** How often a held lease is renewed. Default a third of `ttlMs`. */
  readonly renewEveryMs?: number;
  /** How long `acquire` waits for a busy lease before it fails. Default 0: it fails at once. */
  readonly waitMs?: number;
  /** How often a waiting `acquire` tries again. Default 200 ms. */
  readonly retryEveryMs?: number;
}

// Renews (or releases) only a lease this owner still holds. KEYS: lease. ARGV: owner, ttl ms ('0': delete).
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '0' then redis.call('DEL', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

/**
 * A {@link SandboxLease} on Redis: a key per session (`SET NX PX`), renewed by its holder every
 * `renewEveryMs` and expiring `ttlMs` after the last renewal, so a holder that dies frees the
 * session within `ttlMs`. Renewal and release touch the key only while this holder owns it
 * (a Lua check-and-set). A second process gets a {@link SandboxBusyError} at once, or after
 * waiting up to `waitMs`. A holder that cannot renew for `ttlMs` (Redis unreachable) or finds the
 * key taken counts the lease as lost and tells its `onLost` listeners.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { RedisSandboxLease } from '@rxscope/harness/redis';
 *
 * const agent = createHarnessAgent({ ...presets.coding(), model, workspace: './ws', sessionId: 's1',
 *   sandboxLease: new RedisSandboxLease({ redis: new Redis(process.env.REDIS_URL!), waitMs: 10_000 }) });
 * ```
 */
export class RedisSandboxLease implements SandboxLease {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly ttlMs: number;
  private readonly renewEveryMs: number;
  private readonly waitMs: number;
  private readonly retryEveryMs: number;

  constructor(options: RedisSandboxLeaseOptions) {
    this.redis = options.redis;
    this.prefix = options.prefix ?? 'rxscope:sandbox-lease:';
    this.ttlMs = Math.max(100, options.ttlMs ?? 30_000);
    this.renewEveryMs = Math.max(10, Math.min(options.renewEveryMs ?? this.ttlMs / 3, this.ttlMs / 2));
    this.waitMs = Math.max(0, options.waitMs ?? 0);
    this.retryEveryMs = Math.max(10, options.retryEveryMs ?? 200);
  }

  /**
   * The Redis key of a session's lease.
   *
   * @example
   * ```ts
   * await redis.get(lease.keyOf('s1')); // the holder, or null
   * ```
   */
  keyOf(sessionId: string): string {
    return `${this.prefix}${sessionId}`;
  }

  async acquire(sessionId: string, options: { readonly signal?: AbortSignal } = {}): Promise<HeldSandboxLease> {
    const key = this.keyOf(sessionId);
    const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      options.signal?.throwIfAborted();
      if ((await this.redis.set(key, owner, 'PX', this.ttlMs, 'NX')) === 'OK') {
        if (!options.signal?.aborted) return this.held(sessionId, key, owner);
        await this.redis.eval(RENEW, 1, key, owner, '0'); // the reply went away meanwhile
        options.signal.throwIfAborted();
      }
      if (Date.now() >= deadline) {
        const holder = await this.redis.get(key);
        if (holder === null) continue; // it just expired or was released
        throw new SandboxBusyError(sessionId, holder);
      }
      await sleep(Math.min(this.retryEveryMs, Math.max(1, deadline - Date.now())), options.signal);
    }
  }

  private held(sessionId: string, key: string, owner: string): HeldSandboxLease {
    const listeners: ((error: SandboxBusyError) => void)[] = [];
    let lastRenewed = Date.now();
    let done = false;
    const lose = (holder: string | undefined) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      const error = new SandboxBusyError(
        sessionId,
        holder,
        `The sandbox lease of session "${sessionId}" was lost (not renewed within ${this.ttlMs} ms` +
          `${holder ? `; now held by ${holder}` : ''}); this process stops driving it.`,
      );
      for (const listener of listeners.splice(0)) listener(error);
    };
    const timer = setInterval(() => {
      this.redis.eval(RENEW, 1, key, owner, this.ttlMs).then(
        async (ok) => {
          if (ok === 1) lastRenewed = Date.now();
          else lose((await this.redis.get(key).catch(() => null)) ?? undefined);
        },
        () => {
          if (Date.now() - lastRenewed >= this.ttlMs) lose(undefined);
        },
      );
    }, this.renewEveryMs);
    timer.unref?.();
    return {
      sessionId,
      owner,
      onLost: (listener) => void listeners.push(listener),
      release: async () => {
        if (done) return;
        done = true;
        clearInterval(timer);
        await this.redis.eval(RENEW, 1, key, owner, '0');
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
