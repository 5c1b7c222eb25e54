/**
 * Helpers shared by the budget and limit middlewares (`reply-budget`, `model-call-limit`,
 * `tool-call-limit`): the error that ends a reply at a hard limit, per-reply and per-session
 * counters, and an operator that inserts events after the ones it watches. Only
 * {@link LimitExceededError} is public. (Hints are the core's: `ctx.conversation.addHint`.)
 *
 * @example
 * ```ts
 * const counts = new ScopedState(key, () => ({ calls: 0 }), () => ({ calls: 0 }));
 * counts.setReply(ctx, { calls: counts.reply(ctx).calls + 1 });
 * ```
 *
 * @module
 */
import { type MonoTypeOperatorFunction, Observable } from 'rxjs';
import type { AgentEvent, RuntimeContext } from '@rxscope/core';

/** Which limit was hit: per reply or per session. */
export type LimitScope = 'reply' | 'session';

/** Options of {@link LimitExceededError}. */
export interface LimitExceededErrorOptions {
  readonly code: 'model_call_limit' | 'tool_call_limit';
  readonly scope: LimitScope;
  readonly limit: number;
  readonly used: number;
}

/**
 * A limit reached, as an error, for a middleware of your own that must end a reply with an error
 * rather than a policy end. (`ModelCallLimitMiddleware` and `ToolCallLimitMiddleware` end a reply
 * on purpose with `ctx.stop()`: `finishReason: 'stopped'`.) `resilient()` lets it propagate.
 *
 * @example
 * ```ts
 * return throwError(() => new LimitExceededError('3 searches per reply', { code: 'tool_call_limit', scope: 'reply', limit: 3, used: 3 }));
 * ```
 */
export class LimitExceededError extends Error {
  override readonly name = 'LimitExceededError';
  readonly code: LimitExceededErrorOptions['code'];
  readonly scope: LimitScope;
  readonly limit: number;
  readonly used: number;
  /** Never worth retrying: the same request hits the same limit. */
  readonly retryable = false;

  constructor(message: string, options: LimitExceededErrorOptions) {
    super(message);
    this.code = options.code;
    this.scope = options.scope;
    this.limit = options.limit;
    this.used = options.used;
  }
}

interface Persisted<S> {
  readonly session?: S;
}

/**
 * Per-reply and per-session values of one middleware. The per-reply value lives in
 * `ctx.replyState(key)`, which the agent saves with a reply suspended for confirmation and
 * restores when it resumes (even from a snapshot in another process), so a resumed reply keeps
 * counting where it stopped; the per-session value lives in `ctx.state(key)`. Values are
 * replaced, never mutated, and must be JSON-serialisable.
 */
export class ScopedState<R, S> {
  constructor(
    private readonly key: string,
    private readonly initReply: () => R,
    private readonly initSession: () => S,
  ) {}

  reply(ctx: RuntimeContext): R {
    return ctx.replyState<R>(this.key).get() ?? this.initReply();
  }

  setReply(ctx: RuntimeContext, value: R): void {
    ctx.replyState<R>(this.key).set(value);
  }

  session(ctx: RuntimeContext): S {
    return ctx.state<Persisted<S>>(this.key).get()?.session ?? this.initSession();
  }

  setSession(ctx: RuntimeContext, value: S): void {
    ctx.state<Persisted<S>>(this.key).set({ session: value });
  }
}

/**
 * Emits each event, then whatever `extra` returns for it (nothing when it returns `undefined`).
 * A throw in `extra` becomes an error notification.
 */
export function emitAfter(extra: (event: AgentEvent) => readonly AgentEvent[] | undefined): MonoTypeOperatorFunction<AgentEvent> {
  return (source) =>
    new Observable<AgentEvent>((subscriber) =>
      source.subscribe({
        next: (event) => {
          let more: readonly AgentEvent[] | undefined;
          try {
            more = extra(event);
          } catch (err) {
            subscriber.error(err);
            return;
          }
          subscriber.next(event);
          if (more) for (const e of more) subscriber.next(e);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      }),
    );
}

/** Checks a limit option: a non-negative integer or `Infinity`. */
export function checkLimit(owner: string, name: string, value: number | undefined): number {
  if (value === undefined) return Infinity;
  if (value !== Infinity && (!Number.isInteger(value) || value < 0)) {
    throw new RangeError(`${owner}: ${name} must be a non-negative integer (or Infinity), got ${value}.`);
  }
  return value;
}
