/**
 * `ModelCallLimitMiddleware`: at most `perReply` model calls in one reply and `perSession` in
 * the agent's session. A model call is a reasoning step that reached the model: retries and
 * fallbacks inside one step (`onModelCall` layers) count once, a step answered without the
 * model (a cache) does not count. The session count is kept in `ctx.state(key)`, so it is saved
 * by `saveState()` / session stores and survives a restore; the reply count survives a
 * suspension for confirmation.
 *
 * What happens at the limit (`onLimit`):
 * - `'finish'` (default): the last allowed call is made with `toolChoice: 'none'` and a hint
 *   (a `HINT_BLOCK`) telling the model to answer now, so the reply ends `completed` with an
 *   answer. If the model still asks for tools, or no call is left at all (a session used up in
 *   an earlier reply), the reply ends as with `'end'`.
 * - `'end'`: the allowed calls run normally; when the loop needs one more, the reply ends
 *   without calling the model, on purpose: `REPLY_END {finishReason: 'stopped', stopReason:
 *   {code: 'model_call_limit', message}}` (after a `CUSTOM model_call_limit` event);
 *   `agent.call()` resolves with the reply so far (`metadata.stopReason`). Everything the reply
 *   did so far (tool calls and their results) stays in the conversation.
 *
 * Each decision is reported as `CUSTOM {name: 'model_call_limit', value: {action: 'finish' | 'end', scope, limit, used}}`.
 *
 * @example
 * ```ts
 * // at most 8 model calls per reply (the 8th must answer), 200 per session
 * const agent = new Agent({ model, tools, middlewares: [new ModelCallLimitMiddleware({ perReply: 8, perSession: 200 })] });
 * ```
 *
 * @module
 */
import { checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import { concat, defer, EMPTY, from, type Observable, tap } from 'rxjs';
import type { AgentHandle, AgentEvent, Middleware, Next, ReasoningInput, RuntimeContext } from '@rxscope/core';
import { checkLimit } from '../internal/check-limit.js';
import { ScopedState } from '../internal/scoped-state.js';
import type { LimitScope } from '../limit-exceeded-error.js';

/** Where the model-call counts stand when a limit decision is made. */
export interface ModelCallLimitStatus {
  readonly scope: LimitScope;
  readonly limit: number;
  /** Calls made in that scope so far. */
  readonly used: number;
}

/** Options of {@link ModelCallLimitMiddleware}. At least one limit is required. */
export interface ModelCallLimitOptions {
  /** Model calls allowed in one reply. Default: no limit. */
  readonly perReply?: number;
  /** Model calls allowed in the agent's session (persisted with its state). Default: no limit. */
  readonly perSession?: number;
  /** `'finish'`: make the last allowed call answer (default); `'end'`: end the reply with a `model_call_limit` error. */
  readonly onLimit?: 'end' | 'finish';
  /** The hint of the last allowed call (`'finish'`). Default: "this is your last model call; answer now". */
  readonly finishHint?: string | ((status: ModelCallLimitStatus) => string);
  /** State key of the counts. Default `'ModelCallLimitMiddleware'`. */
  readonly key?: string;
}

interface ReplyCount {
  readonly calls: number;
}

interface SessionCount {
  readonly calls: number;
}

const defaultFinishHint = (s: ModelCallLimitStatus) =>
  `This is your last model call in this ${s.scope} (limit: ${s.limit} calls). ` +
  'Tools are no longer available: answer now with what you have, and say briefly what is left undone, if anything.';

// Every option, typed against ModelCallLimitOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<ModelCallLimitOptions>({
  perReply: true,
  perSession: true,
  onLimit: true,
  finishHint: true,
  key: true,
});

/** Limits the model calls of a reply and of a session. See the module documentation. */
export class ModelCallLimitMiddleware implements Middleware {
  readonly key: string;
  private readonly perReply: number;
  private readonly perSession: number;
  private readonly onLimit: 'end' | 'finish';
  private readonly finishHint: (status: ModelCallLimitStatus) => string;
  private readonly state: ScopedState<ReplyCount, SessionCount>;

  constructor(options: ModelCallLimitOptions) {
    checkOptionKeys('ModelCallLimitMiddleware', options, OPTION_KEYS);
    const owner = 'ModelCallLimitMiddleware';
    this.perReply = checkLimit(owner, 'perReply', options.perReply);
    this.perSession = checkLimit(owner, 'perSession', options.perSession);
    if (this.perReply === Infinity && this.perSession === Infinity)
      throw new OptionsError(
        'invalid_option',
        'ModelCallLimitMiddleware.perReply',
        `${owner}: set perReply, perSession or both.`,
      );
    this.onLimit = options.onLimit ?? 'finish';
    const hint = options.finishHint;
    this.finishHint = typeof hint === 'string' ? () => hint : (hint ?? defaultFinishHint);
    this.key = options.key ?? owner;
    this.state = new ScopedState<ReplyCount, SessionCount>(
      this.key,
      () => ({ calls: 0 }),
      () => ({ calls: 0 }),
    );
  }

  /** Model calls made so far in this session (per the persisted state). */
  sessionCalls(ctx: RuntimeContext): number {
    return this.state.session(ctx).calls;
  }

  onReasoning(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    const reply = this.state.reply(ctx);
    const session = this.state.session(ctx);
    const replyLeft = this.perReply - reply.calls;
    const sessionLeft = this.perSession - session.calls;
    const status: ModelCallLimitStatus =
      sessionLeft < replyLeft
        ? { scope: 'session', limit: this.perSession, used: session.calls }
        : { scope: 'reply', limit: this.perReply, used: reply.calls };
    const left = Math.min(replyLeft, sessionLeft);

    if (left <= 0) {
      const message = `Model call limit reached: at most ${status.limit} model calls per ${status.scope} (${status.used} made).`;
      return concat(
        from([ctx.event('CUSTOM', { name: 'model_call_limit', value: { action: 'end', ...status } })]),
        defer(() => {
          ctx.stop({ code: 'model_call_limit', message });
          return EMPTY;
        }),
      );
    }

    const head: AgentEvent[] = [];
    let steered = input;
    const finish = left === 1 && this.onLimit === 'finish';
    const hintId = `${this.key}:finish`;
    if (finish) {
      // Reported once per reply, even when an outer layer re-enters the step.
      if (!ctx.conversation.hasHint(hintId))
        head.push(ctx.event('CUSTOM', { name: 'model_call_limit', value: { action: 'finish', ...status } }));
      steered = { ...input, toolChoice: 'none' };
    }

    return concat(
      from(head),
      defer(() => {
        if (finish) ctx.conversation.addHint(this.finishHint(status), { id: hintId, source: this.key });
        let counted = false;
        return next(steered).pipe(
          tap((e) => {
            if (counted || e.type !== 'MODEL_CALL_START' || e.source !== ctx.agentName) return;
            counted = true;
            const r = this.state.reply(ctx);
            this.state.setReply(ctx, { ...r, calls: r.calls + 1 });
            this.state.setSession(ctx, { calls: this.state.session(ctx).calls + 1 });
          }),
        );
      }),
    );
  }
}
