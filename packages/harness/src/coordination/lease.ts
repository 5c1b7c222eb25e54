import { RxscopeError } from '@rxscope/core';

/**
 * An exclusive lease on a key, across processes: while one holder keeps it, nobody else
 * acquires it. The harness's detached memory work takes one (`memory.lease`) so that one
 * session never runs two flushes at once, and one workspace never runs two maintenance runs at
 * once, in any number of processes. `RedisLease` (`@rxscope/harness/redis`) is the
 * implementation on Redis.
 *
 * @example
 * ```ts
 * const held = await lease.acquire('flush:s1', { waitMs: 60_000 });
 * held.onLost((error) => controller.abort(error)); // it expired unrenewed and someone else took it
 * try { await work(controller.signal); } finally { await held.release(); }
 * ```
 */
export interface Lease {
  /**
   * Takes the lease of `key`, or rejects with a {@link LeaseBusyError} when another holder keeps
   * it (at once, or after waiting up to `waitMs`, which overrides the implementation's default).
   * Rejects when `signal` aborts.
   */
  acquire(key: string, options?: { readonly signal?: AbortSignal; readonly waitMs?: number }): Promise<HeldLease>;
}

/**
 * A lease this process holds (renewed in the background until released).
 *
 * @example
 * ```ts
 * const held = await lease.acquire('flush:s1');
 * console.log(held.owner); // 'host-a:4242:k2x9'
 * ```
 */
export interface HeldLease {
  readonly key: string;
  /** Who holds it: unique per acquisition. */
  readonly owner: string;
  /** Called once if the lease is lost (it expired unrenewed, and maybe someone else took it). */
  onLost(listener: (error: LeaseBusyError) => void): void;
  /** Gives the lease up (only if still held by this owner); stops renewing. */
  release(): Promise<void>;
}

/**
 * Another holder keeps the lease (or took over a lease this process lost).
 *
 * @example
 * ```ts
 * try { await lease.acquire('maintenance:/ws'); } catch (e) { if (e instanceof LeaseBusyError) console.log(e.holder); }
 * ```
 */
export class LeaseBusyError extends RxscopeError {
  override readonly name: string = 'LeaseBusyError';
  readonly code: string = 'lease_busy';
  constructor(
    readonly key: string,
    readonly holder: string | undefined,
    message?: string,
  ) {
    super(message ?? `The lease "${key}" is held by another process (${holder ?? 'unknown holder'}).`);
  }
}
