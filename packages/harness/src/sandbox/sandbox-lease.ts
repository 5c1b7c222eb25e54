import { LeaseBusyError } from '../coordination/index.js';

/**
 * A lease on one session's sandbox, held while a reply of that session drives it: while one
 * process holds it, no other process acquires that session's sandbox. `RedisSandboxLease`
 * (`@rxscope/harness/redis`) is the implementation for many processes.
 *
 * @example
 * ```ts
 * const held = await lease.acquire('s1', { signal });
 * held.onLost((error) => console.error(error.message)); // another process took it over
 * // ... drive the sandbox ...
 * await held.release();
 * ```
 */
export interface SandboxLease {
  /**
   * Takes the lease of `sessionId`, or rejects with a {@link SandboxBusyError} when another
   * holder keeps it (at once, or after the implementation's wait). Rejects when `signal` aborts.
   */
  acquire(sessionId: string, options?: { readonly signal?: AbortSignal }): Promise<HeldSandboxLease>;
}

/**
 * A lease this process holds (renewed in the background until released).
 *
 * @example
 * ```ts
 * const held = await lease.acquire('s1');
 * console.log(held.owner); // 'host-a:4242:k2x9'
 * ```
 */
export interface HeldSandboxLease {
  readonly sessionId: string;
  /** Who holds it: unique per acquisition. */
  readonly owner: string;
  /** Called once if the lease is lost (it expired unrenewed and someone else took it). */
  onLost(listener: (error: SandboxBusyError) => void): void;
  /** Gives the lease up (only if still held by this owner); stops renewing. */
  release(): Promise<void>;
}

/**
 * Another process drives this session's sandbox (or took over a lease this process lost); a
 * {@link LeaseBusyError} whose key is the session id. A
 * reply that cannot get the lease ends with `REPLY_END {finishReason: 'error', error: {code:
 * 'sandbox_busy'}}` before anything of it runs; retry later or route the session to the process
 * holding it.
 *
 * @example
 * ```ts
 * const end = await lastValueFrom(agent.reply('go on'));
 * if (end.type === 'REPLY_END' && end.error?.code === 'sandbox_busy') res.status(409).end(end.error.message);
 * ```
 */
export class SandboxBusyError extends LeaseBusyError {
  override readonly name = 'SandboxBusyError';
  override readonly code = 'sandbox_busy';
  constructor(
    readonly sessionId: string,
    holder: string | undefined,
    message?: string,
  ) {
    super(
      sessionId,
      holder,
      message ??
        `The sandbox of session "${sessionId}" is in use by another process (${holder ?? 'unknown holder'}); ` +
          'two processes never drive one session at once. Retry when its reply has ended.',
    );
  }
}
