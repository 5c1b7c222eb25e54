import type { RuntimeContext } from '@rxscope/core';

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
