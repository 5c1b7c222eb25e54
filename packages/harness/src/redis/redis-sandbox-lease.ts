import type { Redis } from 'ioredis';
import { type LeaseBusyError } from '../coordination/lease.js';
import { SandboxBusyError, type HeldSandboxLease, type SandboxLease } from '../sandbox/sandbox-lease.js';
import { RedisLease } from './redis-lease.js';
import { optionKeys } from '@rxscope/core';
import { refuseUnknownOptions } from '../options/index.js';

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

/** A RedisLease whose errors are SandboxBusyErrors that speak of the session's sandbox. */
class SessionSandboxRedisLease extends RedisLease {
  protected override busy(sessionId: string, holder: string | undefined, lost = false): LeaseBusyError {
    return new SandboxBusyError(
      sessionId,
      holder,
      lost
        ? `The sandbox lease of session "${sessionId}" was lost (not renewed within ${this.ttlMs} ms` +
            `${holder ? `; now held by ${holder}` : ''}); this process stops driving it.`
        : undefined,
    );
  }
}

// Every option, typed against RedisSandboxLeaseOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<RedisSandboxLeaseOptions>({
  redis: true,
  prefix: true,
  ttlMs: true,
  renewEveryMs: true,
  waitMs: true,
  retryEveryMs: true,
});

/**
 * A {@link SandboxLease} on Redis (a {@link RedisLease} per session): a key per session (`SET NX
 * PX`), renewed by its holder every `renewEveryMs` and expiring `ttlMs` after the last renewal,
 * so a holder that dies frees the session within `ttlMs`. Renewal and release touch the key only
 * while this holder owns it (a Lua check-and-set). A second process gets a
 * {@link SandboxBusyError} at once, or after waiting up to `waitMs`. A holder that cannot renew
 * for `ttlMs` (Redis unreachable) or finds the key taken counts the lease as lost and tells its
 * `onLost` listeners.
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
  private readonly lease: RedisLease;

  constructor(options: RedisSandboxLeaseOptions) {
    refuseUnknownOptions('RedisSandboxLease', options, OPTION_KEYS);
    this.lease = new SessionSandboxRedisLease({ ...options, prefix: options.prefix ?? 'rxscope:sandbox-lease:' });
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
    return this.lease.keyOf(sessionId);
  }

  async acquire(sessionId: string, options: { readonly signal?: AbortSignal } = {}): Promise<HeldSandboxLease> {
    const held = await this.lease.acquire(sessionId, options);
    return {
      sessionId,
      owner: held.owner,
      onLost: (listener) => held.onLost((error) => listener(error as SandboxBusyError)),
      release: () => held.release(),
    };
  }
}
