import {
  catchError,
  concat,
  defer,
  EMPTY,
  finalize,
  from,
  type Observable,
  of,
  Subject,
  switchMap,
  takeUntil,
  tap,
} from 'rxjs';
import type { Agent } from './agent.js';
import type { AgentEvent, ReplyFinishReason, Usage } from '../event/events.js';
import type { Msg, ToolCallBlock } from '../message/blocks.js';
import { createMsg } from '../message/msg.js';
import { createReplyReducer, type ReplyReducer } from '../message/reducer.js';
import type { Chain } from '../middleware/chain.js';
import type { ActingInput, AgentInput, ModelCallInput, ReasoningInput } from '../middleware/middleware.js';
import type { ModelOptions, ChatModel, ToolChoice } from '../model/chat-model.js';
import { toErrorInfo } from '../model/model-error.js';
import type { Tool } from '../tool/tool.js';
import { executeTool, prepareCall, runCall, runCalls } from './acting.js';
import { closingEvents } from './closing.js';
import { callModel } from './model-step.js';
import { runSteps } from './steps.js';
import type { ReplyContext } from './reply-context.js';

/** What the loop needs from its agent (resolved once per agent). */
export interface LoopHost {
  readonly agent: Agent;
  readonly model: ChatModel;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly toolList: readonly Tool[];
  readonly reasoningChain: Chain<ReasoningInput>;
  readonly actingChain: Chain<ActingInput>;
  readonly modelCallChain: Chain<ModelCallInput>;
  readonly maxIters: number;
  readonly toolChoice: ToolChoice;
  readonly resetToolChoice: boolean;
  readonly modelOptions: ModelOptions;
  readonly maxConcurrentTools: number;
  systemPrompt(ctx: ReplyContext): Observable<string>;
  context(): readonly Msg[];
  append(messages: readonly Msg[]): void;
}

class ReasonStep {
  constructor(readonly final: boolean) {}
}
class ActStep {
  constructor(readonly calls: readonly ToolCallBlock[]) {}
}
class DoneStep {
  constructor(readonly reason: ReplyFinishReason) {}
}
type Step = ReasonStep | ActStep | DoneStep;
const isStep = (v: AgentEvent | Step): v is Step => v instanceof ReasonStep || v instanceof ActStep || v instanceof DoneStep;

/**
 * One reply of the ReAct loop: the innermost `onAgent` step. It emits `REPLY_START`, runs
 * reasoning and acting steps flatly (`runSteps`, an `expand` with a trampoline: a thousand
 * iterations use no more stack than one), and always ends with `REPLY_END`, after closing every open block and
 * answering every unanswered tool call. The reply's message is folded with the same reducer a
 * consumer uses, and appended to the conversation when the reply ends (or is cancelled).
 */
export class ReplyRun {
  readonly reducer: ReplyReducer;
  private readonly interrupts = new Subject<string>();
  private interruptReason: string | undefined;
  private failure: unknown;
  private done: DoneStep | undefined;
  private finished = false;
  private toolSteps = 0;
  private usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; reasoningTokens: number } = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    reasoningTokens: 0,
  };

  constructor(
    private readonly host: LoopHost,
    private readonly ctx: ReplyContext,
  ) {
    this.reducer = createReplyReducer({ source: ctx.agentName, name: ctx.agentName });
  }

  /** Gracefully stops the reply: the running step is cancelled and the reply ends `interrupted`. */
  interrupt(reason: string): void {
    if (this.finished || this.interruptReason !== undefined) return;
    this.interruptReason = reason;
    this.interrupts.next(reason);
  }

  events(input: AgentInput): Observable<AgentEvent> {
    return defer(() => {
      this.host.append(input.messages);
      const steps = runSteps<AgentEvent, Step>(new ReasonStep(this.host.maxIters <= 0), (step) => this.runStep(step), isStep).pipe(
        catchError((err: unknown) => {
          this.failure = err;
          return EMPTY;
        }),
        takeUntil(this.interrupts),
      );
      const start = this.ctx.event('REPLY_START', { sessionId: this.ctx.sessionId });
      this.reducer.apply(start);
      return concat(
        of(start),
        steps,
        defer(() => from(this.finish())),
      ).pipe(finalize(() => this.finish()));
    });
  }

  private runStep(step: Step): Observable<AgentEvent | Step> {
    if (step instanceof DoneStep) {
      this.done = step;
      return EMPTY;
    }
    if (step instanceof ActStep) {
      this.toolSteps++;
      return concat(
        this.acting(step.calls),
        defer(() => of(new ReasonStep(this.toolSteps >= this.host.maxIters))),
      );
    }
    this.ctx.iteration++;
    return concat(
      this.reasoning(step.final),
      defer(() => {
        const calls = this.reducer.unansweredCalls();
        if (step.final) return of(new DoneStep(this.toolSteps > 0 ? 'max_iters' : 'completed'));
        return of(calls.length ? new ActStep(calls) : new DoneStep('completed'));
      }),
    );
  }

  private reasoning(final: boolean): Observable<AgentEvent> {
    const { host, ctx } = this;
    const soFar = this.reducer.message();
    const forced = host.toolChoice !== 'auto' && host.toolChoice !== 'none';
    const toolChoice: ToolChoice = final
      ? 'none'
      : forced && host.resetToolChoice && ctx.iteration > 1
        ? 'auto'
        : host.toolChoice;
    const input: ReasoningInput = {
      messages: soFar.content.length ? [...host.context(), soFar] : host.context(),
      tools: host.toolList,
      toolChoice,
      options: host.modelOptions,
      model: host.model,
    };
    return host.reasoningChain(host.agent, ctx, input, (i) => this.reason(i)).pipe(tap((e) => this.apply(e)));
  }

  private reason(input: ReasoningInput): Observable<AgentEvent> {
    const { host, ctx } = this;
    return host.systemPrompt(ctx).pipe(
      switchMap((prompt) =>
        host.modelCallChain(
          host.agent,
          ctx,
          {
            model: input.model,
            messages: prompt ? [createMsg('system', prompt, { name: 'system' }), ...input.messages] : input.messages,
            tools: input.tools.map((t) => t.schema),
            toolChoice: input.toolChoice,
            options: input.options,
            signal: ctx.signal,
          },
          (i) => callModel(ctx, i),
        ),
      ),
    );
  }

  private acting(calls: readonly ToolCallBlock[]): Observable<AgentEvent> {
    const { host, ctx } = this;
    const prepared = calls.map((c) => prepareCall(c, host.tools));
    const acting = (i: ActingInput) => host.actingChain(host.agent, ctx, i, (j) => executeTool(ctx, j));
    return runCalls(prepared, host.maxConcurrentTools, (p) => runCall(ctx, p, acting)).pipe(tap((e) => this.apply(e)));
  }

  private readonly apply = (e: AgentEvent): void => {
    this.reducer.apply(e);
    if (e.type === 'MODEL_CALL_END' && e.source === this.ctx.agentName) this.addUsage(e.usage);
  };

  private addUsage(u: Usage): void {
    this.usage.inputTokens += u.inputTokens;
    this.usage.outputTokens += u.outputTokens;
    this.usage.cacheReadTokens += u.cacheReadTokens ?? 0;
    this.usage.reasoningTokens += u.reasoningTokens ?? 0;
  }

  /**
   * Closes what is open, answers unanswered calls, emits `REPLY_END` and stores the message.
   * Runs once: at the end of the stream, or on unsubscribe (then nothing is emitted).
   */
  private finish(): AgentEvent[] {
    if (this.finished) return [];
    this.finished = true;
    this.interrupts.complete();
    const cancelled = !this.done && this.failure === undefined && this.interruptReason === undefined;
    const reason: ReplyFinishReason =
      this.failure !== undefined ? 'error' : this.interruptReason !== undefined || cancelled ? 'interrupted' : this.done!.reason;
    const why =
      reason === 'error'
        ? `the reply failed: ${toErrorInfo(this.failure).message}`
        : reason === 'max_iters'
          ? 'the iteration limit was reached'
          : `the reply was interrupted${this.interruptReason ? ` (${this.interruptReason})` : ''}`;
    const { ctx, reducer } = this;
    const out = closingEvents(ctx, reducer, reason === 'error' ? 'error' : 'interrupted', why);
    const u = this.usage;
    out.push(
      ctx.event('REPLY_END', {
        finishReason: reason,
        usage: {
          inputTokens: u.inputTokens,
          outputTokens: u.outputTokens,
          ...(u.cacheReadTokens ? { cacheReadTokens: u.cacheReadTokens } : {}),
          ...(u.reasoningTokens ? { reasoningTokens: u.reasoningTokens } : {}),
        },
        ...(reason === 'error' ? { error: toErrorInfo(this.failure) } : {}),
      }),
    );
    const msg = reducer.message();
    if (msg.content.length) this.host.append([msg]);
    return out;
  }
}
