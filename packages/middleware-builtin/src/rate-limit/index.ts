/**
 * # RateLimitMiddleware
 *
 * A gate in front of the model: at most `maxConcurrent` model calls at once, and at least
 * `minIntervalMs` between the starts of two calls. Calls wait their turn in FIFO order.
 *
 * **One instance is one gate.** This is the deliberate exception to "middlewares are stateless":
 * the gate's state (calls running, queue, time of the last start) lives in the instance, so
 * every agent and every reply that uses the same instance shares the same limit — which is the
 * point when several agents call one provider account. Create one instance per limit (per API
 * key, per provider) and share it; create separate instances for separate limits.
 *
 * - A waiter that is cancelled (the reply unsubscribed or was interrupted while waiting) leaves
 *   the queue at once and gives its place to the next one; nothing leaks.
 * - A slot is freed when the call ends: completion, error or unsubscribe.
 * - A call that had to wait emits `CUSTOM {name: 'rate_limit', value: {waitedMs}}` before its
 *   `MODEL_CALL_START`.
 * - Put it innermost, right around the real call: each attempt of an outer retry or fallback
 *   passes the gate again, and a backoff wait does not hold a slot.
 *
 * @example
 * ```ts
 * import { RateLimitMiddleware } from '@rxscope/middleware-builtin';
 *
 * const openaiLimit = new RateLimitMiddleware({ maxConcurrent: 4, minIntervalMs: 250 });
 * const researcher = new Agent({ name: 'researcher', model, middlewares: [openaiLimit] });
 * const writer = new Agent({ name: 'writer', model, middlewares: [openaiLimit] }); // same gate
 * ```
 *
 * @module
 */
import { asyncScheduler, concat, Observable, of, type SchedulerLike, Subscription } from 'rxjs';
import type { AgentHandle, AgentEvent, Middleware, ModelCallInput, Next, RuntimeContext } from '@rxscope/core';
import { checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import { Gate } from './gate.js';

/** Options of {@link RateLimitMiddleware}. */
export interface RateLimitOptions {
  /** Model calls running at once through this instance. Default: no limit. */
  readonly maxConcurrent?: number;
  /** Minimum time between the starts of two calls, in ms. Default 0 (no limit). */
  readonly minIntervalMs?: number;
  /** Clock and timers. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** Value of the `CUSTOM {name: 'rate_limit'}` event of a call that had to wait. */
export interface RateLimitEventValue {
  /** Time spent in the queue, in ms. */
  readonly waitedMs: number;
}

// Every option, typed against RateLimitOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<RateLimitOptions>({
  maxConcurrent: true,
  minIntervalMs: true,
  scheduler: true,
});

/**
 * A FIFO gate limiting concurrency and call rate of model calls, shared by every agent using
 * the instance (see the module documentation).
 */
export class RateLimitMiddleware implements Middleware {
  readonly key = 'rateLimit';
  private readonly gate: Gate;

  constructor(options: RateLimitOptions = {}) {
    checkOptionKeys('RateLimitMiddleware', options, OPTION_KEYS);
    const maxConcurrent = options.maxConcurrent ?? Number.POSITIVE_INFINITY;
    if (!(maxConcurrent >= 1))
      throw new OptionsError(
        'invalid_option',
        'RateLimitMiddleware.maxConcurrent',
        `RateLimitMiddleware: maxConcurrent must be at least 1, got ${maxConcurrent}.`,
      );
    this.gate = new Gate(
      Math.floor(maxConcurrent),
      Math.max(0, options.minIntervalMs ?? 0),
      options.scheduler ?? asyncScheduler,
    );
  }

  /** Model calls admitted and still running. */
  get active(): number {
    return this.gate.active;
  }

  /** Model calls waiting for their turn. */
  get waiting(): number {
    return this.gate.waiting;
  }

  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      const call = new Subscription();
      const ticket = this.gate.enter((waitedMs, queued) => {
        const value: RateLimitEventValue = { waitedMs };
        const events = queued
          ? concat(of(ctx.event('CUSTOM', { name: 'rate_limit', value })), next(input))
          : next(input);
        call.add(
          events.subscribe({
            next: (e) => subscriber.next(e),
            error: (err: unknown) => subscriber.error(err),
            complete: () => subscriber.complete(),
          }),
        );
      });
      // Runs on completion, error and unsubscribe alike (at once if the call already ended).
      return () => {
        call.unsubscribe();
        ticket.release();
      };
    });
  }
}
