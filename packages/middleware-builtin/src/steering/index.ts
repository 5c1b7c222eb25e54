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
import { type AgentEvent, ContextToken, type RuntimeContext } from '@rxscope/core';

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
 * The failure that ends a reply when a hard limit of `ModelCallLimitMiddleware` or
 * `ToolCallLimitMiddleware` is reached (`onLimit: 'end'`, or no call is left at all). The reply
 * ends with `REPLY_END {finishReason: 'error', error: {name: 'LimitExceededError', code, retryable: false}}`
 * and `agent.call()` rejects with an `AgentError` carrying the same `code`.
 *
 * @example
 * ```ts
 * try { await agent.call('go'); } catch (e) { if (e instanceof AgentError && e.info.code === 'model_call_limit') showUpgrade(); }
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

interface Persisted<S, R> {
  readonly session?: S;
  readonly reply?: { readonly id: string; readonly value: R };
}

/**
 * Per-reply and per-session values of one middleware. The per-reply value lives in the reply's
 * context (a `ContextToken`) and is mirrored into the persisted state, so a reply suspended for
 * confirmation and resumed later (even from a snapshot in another process) keeps counting where
 * it stopped; the per-session value lives in `ctx.state(key)` only. Values are replaced, never
 * mutated, and must be JSON-serialisable.
 */
export class ScopedState<R, S> {
  private readonly token: ContextToken<R | undefined>;

  constructor(
    private readonly key: string,
    private readonly initReply: () => R,
    private readonly initSession: () => S,
  ) {
    this.token = new ContextToken<R | undefined>(`${key}.reply`, () => undefined);
  }

  reply(ctx: RuntimeContext): R {
    const cached = ctx.get(this.token);
    if (cached !== undefined) return cached;
    const saved = ctx.state<Persisted<S, R>>(this.key).get()?.reply;
    const value = saved && saved.id === ctx.replyId ? saved.value : this.initReply();
    ctx.set(this.token, value);
    return value;
  }

  setReply(ctx: RuntimeContext, value: R): void {
    ctx.set(this.token, value);
    const slot = ctx.state<Persisted<S, R>>(this.key);
    slot.set({ ...slot.get(), reply: { id: ctx.replyId, value } });
  }

  session(ctx: RuntimeContext): S {
    return ctx.state<Persisted<S, R>>(this.key).get()?.session ?? this.initSession();
  }

  setSession(ctx: RuntimeContext, value: S): void {
    const slot = ctx.state<Persisted<S, R>>(this.key);
    slot.set({ ...slot.get(), session: value });
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
