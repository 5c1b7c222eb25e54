import { type AgentEvent, createEvent } from '@rxscope/core';

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
 * never thrown. `idle()` resolves when nothing runs (tests, graceful shutdown).
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
    task: (emit: (name: string, value: unknown) => Promise<void>) => Promise<void>,
    failureName: string,
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
      .then(() => task(emit))
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

  /** Resolves when no work runs or waits (work started meanwhile included). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }
}
