import { type AgentEvent, createEvent } from '@rxscope/core';
import { type Lease, LeaseBusyError } from '../coordination/index.js';

/**
 * Where detached work (memory flush, memory maintenance) reports what it did: a session event
 * bus (`InMemorySessionEventBus`, `RedisSessionEventBus`, or anything with `append`) receives a
 * `CUSTOM` event in the session's log, and `onError` a log line for every failure.
 *
 * @example
 * ```ts
 * const report: DetachedReport = { bus: sessions.bus, onError: (e, what) => logger.warn(what, e) };
 * ```
 */
export interface DetachedReport {
  /** Receives `CUSTOM` events (`memory_flushed`, `memory_flush_failed`, ...) in the session's log. */
  readonly bus?: { append(sessionId: string, event: AgentEvent): Promise<void> };
  /** Every failure, with what failed. Default: `console.error`. */
  readonly onError?: (error: unknown, what: string) => void;
  /**
   * Makes the work exclusive across processes, not only within this one: each piece holds the
   * lease of its key while it runs (a `RedisLease` of `@rxscope/harness/redis`). Default none.
   */
  readonly lease?: Lease;
}

/** How a piece of detached work takes the cross-process lease (when the report has one). */
export interface DetachedLeaseUse {
  /** The lease's key (`flush:<sessionId>`, `maintenance:<workspace>`). */
  readonly key: string;
  /** How long to wait for another process's piece to end. */
  readonly waitMs: number;
  /** When another process holds the lease: skip this piece (it covers it) instead of failing. */
  readonly skipWhenBusy?: boolean;
}

/** Identity of the reply that started a piece of detached work. */
export interface DetachedOrigin {
  readonly sessionId: string;
  readonly replyId: string;
  readonly agentName: string;
}

/**
 * Runs work after a reply without the reply waiting for it: one piece at a time per key (a
 * session, a workspace), later pieces queued behind the running one, failures reported and
 * never thrown. With a `lease` in the report, each piece also holds that lease while it runs,
 * so no other process runs a piece of the same key meanwhile; the task's signal aborts if the
 * lease is lost. `idle()` resolves when nothing runs (tests, graceful shutdown).
 *
 * @example
 * ```ts
 * const work = new DetachedWork('memory flush', { bus });
 * work.start(origin.sessionId, origin, async (emit) => { ...; emit('memory_flushed', { path }); }, 'memory_flush_failed');
 * await work.idle();
 * ```
 */
export class DetachedWork {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly what: string,
    private readonly report: DetachedReport = {},
  ) {}

  /** True while work of `key` runs or waits. */
  busy(key: string): boolean {
    return this.tails.has(key);
  }

  /**
   * Queues `task` behind the work of `key`. Its `emit` appends a `CUSTOM` event to the session's
   * log; a failure is appended as `CUSTOM failureName {error}` and logged.
   */
  start(
    key: string,
    origin: DetachedOrigin,
    task: (emit: (name: string, value: unknown) => Promise<void>, signal: AbortSignal) => Promise<void>,
    failureName: string,
    lease?: DetachedLeaseUse,
  ): Promise<void> {
    const emit = async (name: string, value: unknown) => {
      const bus = this.report.bus;
      if (!bus) return;
      await bus.append(
        origin.sessionId,
        createEvent('CUSTOM', { name, value }, { replyId: origin.replyId, source: origin.agentName }),
      );
    };
    const log = this.report.onError ?? ((e: unknown, w: string) => console.error(`[rxscope] ${w} failed:`, e));
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous
      .then(() => this.exclusively(lease, (signal) => task(emit, signal)))
      .catch(async (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        log(error, `${this.what} of session "${origin.sessionId}"`);
        await emit(failureName, { error: message }).catch((e: unknown) => log(e, `${this.what}: reporting to the bus`));
      });
    this.tails.set(key, run);
    this.running.add(run);
    void run.finally(() => {
      this.running.delete(run);
      if (this.tails.get(key) === run) this.tails.delete(key);
    });
    return run;
  }

  /** Runs `task` holding the report's lease (if any); its signal aborts when the lease is lost. */
  private async exclusively(
    use: DetachedLeaseUse | undefined,
    task: (signal: AbortSignal) => Promise<void>,
  ): Promise<void> {
    const controller = new AbortController();
    const lease = this.report.lease;
    if (!lease || !use) return task(controller.signal);
    let held;
    try {
      held = await lease.acquire(use.key, { waitMs: use.waitMs });
    } catch (error) {
      if (use.skipWhenBusy && error instanceof LeaseBusyError) return;
      throw error instanceof LeaseBusyError
        ? new Error(
            `another process runs the ${this.what} of "${use.key}" (${error.holder ?? 'unknown holder'}); gave up after ${use.waitMs} ms`,
          )
        : error;
    }
    held.onLost((error) => controller.abort(error));
    try {
      await task(controller.signal);
    } finally {
      await held.release().catch(() => undefined); // it expires on its own
    }
  }

  /** Resolves when no work runs or waits (work started meanwhile included). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }
}
