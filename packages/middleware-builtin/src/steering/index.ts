/**
 * Helpers shared by the budget and limit middlewares (`reply-budget`, `model-call-limit`,
 * `tool-call-limit`): steering a reasoning step towards a final answer with a hint, the error
 * that ends a reply at a hard limit, per-reply and per-session counters, and an operator that
 * inserts events after the ones it watches. Only {@link LimitExceededError} is public.
 *
 * @example
 * ```ts
 * const steered = withHint(ctx, { ...input, toolChoice: 'none' }, 'Answer now.');
 * return concat(of(hintEvent(ctx, 'Answer now.')), next(steered));
 * ```
 *
 * @module
 */
import { type MonoTypeOperatorFunction, Observable } from 'rxjs';
import {
  type AgentEvent,
  ContextToken,
  createMsg,
  type HintBlock,
  newId,
  type ReasoningInput,
  type RuntimeContext,
} from '@rxscope/core';

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

/** A `HINT_BLOCK` event of this reply. */
export function hintEvent(ctx: RuntimeContext, text: string): AgentEvent {
  return ctx.event('HINT_BLOCK', { blockId: newId('blk'), text });
}

/**
 * The reasoning input with `text` as a hint at the end of the reply so far, which is where the
 * `HINT_BLOCK` event puts it in the stored reply message: the model sees now what the
 * conversation will hold later.
 */
export function withHint(ctx: RuntimeContext, input: ReasoningInput, text: string): ReasoningInput {
  const hint: HintBlock = { type: 'hint', text };
  const last = input.messages[input.messages.length - 1];
  const messages =
    last && last.role === 'assistant' && last.id === ctx.replyId
      ? [...input.messages.slice(0, -1), { ...last, content: [...last.content, hint] }]
      : [...input.messages, createMsg('assistant', [hint], { id: ctx.replyId, name: ctx.agentName })];
  return { ...input, messages };
}

/** A hint given in one reasoning step (`at` is the step's `ctx.iteration`). */
export interface GivenHint {
  readonly id: string;
  readonly text: string;
  readonly at: number;
}

/**
 * Applies hints to a reasoning step, once: a hint not given yet is emitted as a `HINT_BLOCK`
 * and added to what the model sees; a hint given in this same step (the step re-entered by an
 * outer retry) is added again without a second event; a hint given in an earlier step is
 * already in the reply so far and is left alone. Returns the events, the input and the updated
 * list of given hints.
 */
export function applyHints(
  ctx: RuntimeContext,
  input: ReasoningInput,
  wanted: readonly { readonly id: string; readonly text: string }[],
  given: readonly GivenHint[],
): { events: AgentEvent[]; input: ReasoningInput; given: readonly GivenHint[] } {
  const events: AgentEvent[] = [];
  let out = input;
  let list = given;
  for (const hint of wanted) {
    const before = given.find((g) => g.id === hint.id);
    if (before && before.at !== ctx.iteration) continue;
    out = withHint(ctx, out, before?.text ?? hint.text);
    if (!before) {
      events.push(hintEvent(ctx, hint.text));
      list = [...list, { id: hint.id, text: hint.text, at: ctx.iteration }];
    }
  }
  return { events, input: out, given: list };
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
