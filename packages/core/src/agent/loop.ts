import { concat, defer, EMPTY, from, map, Observable, of, Subject, type Subscriber, type Subscription, switchMap } from 'rxjs';
import type { Agent } from './agent.js';
import type {
  AgentEvent,
  ExternalExecutionResultEvent,
  PendingToolCall,
  ReplyFinishReason,
  StopReason,
  Usage,
  UserConfirmResultEvent,
} from '../event/events.js';
import type { Msg, ToolCallBlock } from '../message/blocks.js';
import { createMsg } from '../message/msg.js';
import type { Chain } from '../middleware/chain.js';
import type { ActingInput, AgentInput, ModelCallInput, ReasoningInput } from '../middleware/middleware.js';
import type { ChatModel, ModelOptions, ToolChoice } from '../model/chat-model.js';
import { toErrorInfo } from '../model/model-error.js';
import type { PermissionDecision } from '../permission/engine.js';
import type { PendingReply } from '../state/snapshot.js';
import { toolOutputToContent } from '../tool/output.js';
import type { Tool } from '../tool/tool.js';
import { newId } from '../util/id.js';
import { executeTool, prepareCall, runCall, runCalls, type PreparedCall } from './acting.js';
import { closingEvents } from './closing.js';
import { callModel } from './model-step.js';
import { NestedReplies } from './nested-replies.js';
import type { StructuredOutput } from './structured-output.js';
import type { ReplyContext } from './reply-context.js';
import { ReplyConversation } from './reply-conversation.js';
import { Relay } from './relay.js';
import { runSteps } from './steps.js';

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
  /** The system prompt after the `onSystemPrompt` layers: a string when every layer answered synchronously. */
  systemPrompt(ctx: ReplyContext): string | Observable<string>;
  context(): readonly Msg[];
  /** Appends messages to the conversation. */
  append(messages: readonly Msg[]): void;
  /** Replaces the conversation (an edit through `ctx.conversation`). */
  setContext(messages: readonly Msg[]): void;
  /** Records (or clears) the suspended reply. */
  setPending(pending: PendingReply | undefined): void;
  /** Permission verdict for a validated call (synchronous unless a tool's own check is async). */
  decide(tool: Tool, input: unknown): PermissionDecision | Promise<PermissionDecision>;
  /** Adds an allow rule for a tool ("always allow" in a confirmation). */
  alwaysAllow(toolName: string): void;
  /** Saves the state to the session store; `undefined` when there is no store (nothing to wait for). */
  persist(): Promise<void> | undefined;
  /** Reports an error that has no stream left to travel on (a save after cancellation). */
  reportError(error: unknown): void;
}

/** A validated resume: the suspended reply and the answer to its pending calls. */
export interface ResumeRequest {
  readonly pending: PendingReply;
  readonly event: UserConfirmResultEvent | ExternalExecutionResultEvent;
}

class ReasonStep {
  constructor(readonly final: boolean) {}
}
class ActStep {
  constructor(readonly calls: readonly ToolCallBlock[]) {}
}
class ResumeStep {
  constructor(readonly request: ResumeRequest) {}
}
class SuspendStep {
  constructor(
    readonly confirm: readonly PendingToolCall[],
    readonly external: readonly PendingToolCall[],
  ) {}
}
class DoneStep {
  constructor(readonly reason: ReplyFinishReason) {}
}
type Step = ReasonStep | ActStep | ResumeStep | SuspendStep | DoneStep;
const isStep = (v: AgentEvent | Step): v is Step =>
  v instanceof ReasonStep || v instanceof ActStep || v instanceof ResumeStep || v instanceof SuspendStep || v instanceof DoneStep;

/** A call decided in an acting step: run it, answer it now, or leave it pending. */
type Triage =
  | { readonly kind: 'now'; readonly prepared: PreparedCall }
  | { readonly kind: 'confirm' | 'external'; readonly call: PendingToolCall };

/**
 * One reply of the ReAct loop: the innermost `onAgent` step. It emits `REPLY_START`, runs
 * reasoning and acting steps flatly (`runSteps`, an `expand` with a trampoline: a thousand
 * iterations use no more stack than one), and always ends with `REPLY_END`, after closing every
 * open block and answering every unanswered tool call, or after suspending for confirmation or
 * external execution. The reply's message is folded with the same reducer a consumer uses.
 */
export class ReplyRun {
  /** The reply's conversation (`ctx.conversation`); its reducer folds the reply message. */
  readonly conversation: ReplyConversation;
  private readonly interrupts = new Subject<string>();
  private interruptReason: string | undefined;
  /** Set by `ctx.stop()`: the reply ends `stopped` (a policy end, not an error). */
  private stopReason: StopReason | undefined;
  private failure: unknown;
  private done: DoneStep | undefined;
  private suspended: SuspendStep | undefined;
  private finished = false;
  private toolSteps = 0;
  private readonly usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; reasoningTokens: number };
  /** Replies of agents used as tools, forwarded through this one (closed with it when it is cut off). */
  private readonly nested: NestedReplies;
  /** The agent's tools, plus the `final_output` tool when the reply asks for structured output. */
  private readonly tools: ReadonlyMap<string, Tool>;
  private readonly toolList: readonly Tool[];

  constructor(
    private readonly host: LoopHost,
    private readonly ctx: ReplyContext,
    private readonly resume?: ResumeRequest,
    /** The structured output asked of this reply (`reply(input, {output})`). */
    private readonly output?: StructuredOutput,
  ) {
    const pending = resume?.pending;
    this.conversation = new ReplyConversation(host, ctx, pending?.message);
    ctx.conversationOfReply = this.conversation;
    this.toolSteps = pending?.toolSteps ?? 0;
    this.nested = new NestedReplies(ctx.agentName);
    this.tools = output?.tool ? new Map([...host.tools, [output.tool.name, output.tool]]) : host.tools;
    this.toolList = output?.tool ? [...host.toolList, output.tool] : host.toolList;
    ctx.iteration = pending?.iteration ?? 0;
    const u = pending?.usage;
    this.usage = {
      inputTokens: u?.inputTokens ?? 0,
      outputTokens: u?.outputTokens ?? 0,
      cacheReadTokens: u?.cacheReadTokens ?? 0,
      reasoningTokens: u?.reasoningTokens ?? 0,
    };
  }

  /** Gracefully stops the reply: the running step is cancelled and the reply ends `interrupted`. */
  interrupt(reason: string): void {
    if (this.finished || this.interruptReason !== undefined || this.stopReason !== undefined) return;
    this.interruptReason = reason;
    this.interrupts.next(reason);
  }

  /** A middleware ends the reply on purpose (`ctx.stop`): as an interrupt, but it ends `stopped`. */
  stop(reason: StopReason): boolean {
    if (this.finished || this.interruptReason !== undefined || this.stopReason !== undefined) return false;
    this.stopReason = { code: reason.code, message: reason.message };
    this.interrupts.next(reason.message);
    return true;
  }

  events(input: AgentInput): Observable<AgentEvent> {
    // One Observable instead of concat(head, steps.pipe(catchError, takeUntil), finish).pipe(finalize):
    // every event of the reply passes one relay here.
    return new Observable<AgentEvent>((subscriber) => {
      this.host.append(input.messages);
      const first: Step = this.resume ? new ResumeStep(this.resume) : new ReasonStep(this.host.maxIters <= 0);
      const start = this.ctx.event('REPLY_START', { sessionId: this.ctx.sessionId });
      this.conversation.apply(start);
      subscriber.next(start);
      if (this.resume) subscriber.next(this.ctx.event(this.resume.event.type, { results: this.resume.event.results } as never));
      let stepping = true;
      // Depth of events being passed downstream: an interrupt raised by a consumer while it
      // handles an event stops the steps at once, but the closing events wait until that event
      // has been delivered (else the consumer would see REPLY_END before it, and the event after).
      let emitting = 0;
      let endPending = false;
      const steps = new Relay<AgentEvent>(subscriber, {
        next: (e, down) => {
          emitting++;
          try {
            down.next(e);
          } finally {
            emitting--;
          }
          if (endPending && emitting === 0) end();
        },
        error: (err) => {
          this.failure = err;
          end();
        },
        complete: () => end(),
      });
      let interrupt: Subscription | undefined;
      // The steps end (completed, failed or interrupted): the closing events and REPLY_END follow.
      const end = () => {
        if (!stepping) return;
        interrupt?.unsubscribe();
        steps.unsubscribe();
        if (emitting > 0) {
          endPending = true;
          return;
        }
        stepping = false;
        this.finish(subscriber);
      };
      if (!subscriber.closed) {
        // The interrupts Subject never errors (it only completes when the reply settles).
        interrupt = this.interrupts.subscribe({ next: () => end(), error: (err: unknown) => this.host.reportError(err) });
        if (stepping) steps.subscribeTo(runSteps<AgentEvent, Step>(first, (step) => this.runStep(step), isStep));
        if (!stepping) interrupt.unsubscribe();
      }
      return () => {
        interrupt?.unsubscribe();
        // Cancelled by unsubscribe: store a consistent state; nothing can be emitted any more.
        if (!this.finished) this.settle().persist?.catch((err: unknown) => this.host.reportError(err));
      };
    });
  }

  private runStep(step: Step): Observable<AgentEvent | Step> {
    if (step instanceof DoneStep) {
      this.done = step;
      return EMPTY;
    }
    if (step instanceof SuspendStep) {
      this.suspended = step;
      const out: (AgentEvent | Step)[] = [];
      if (step.confirm.length) out.push(this.ctx.event('REQUIRE_USER_CONFIRM', { toolCalls: step.confirm }));
      if (step.external.length) out.push(this.ctx.event('REQUIRE_EXTERNAL_EXECUTION', { toolCalls: step.external }));
      out.push(new DoneStep(step.confirm.length ? 'awaiting_confirmation' : 'awaiting_external_execution'));
      return from(out);
    }
    if (step instanceof ActStep) {
      this.toolSteps++;
      return this.acting(step.calls);
    }
    if (step instanceof ResumeStep) return this.resumeStep(step.request);
    const ctx = this.ctx;
    ctx.iteration++;
    const events = this.reasoning(step.final);
    // The reasoning events folded into the reply, then the next step: one relay, not tap + concat.
    return new Observable<AgentEvent | Step>((subscriber) => {
      new Relay<AgentEvent, AgentEvent | Step>(subscriber, {
        next: (e, down) => {
          // Hints added since the last event go out first, in the order the reply message holds them.
          if (this.conversation.hasHints) for (const h of this.conversation.takeHints()) down.next(h);
          this.apply(e);
          down.next(e);
        },
        complete: (down) => {
          // Hints added in this step and not emitted yet (a layer answered without the model).
          for (const e of this.conversation.takeHints()) down.next(e);
          this.conversation.dropStepHints(false);
          const calls = step.final ? [] : this.conversation.reducer.unansweredCalls();
          const done = new DoneStep(step.final && this.toolSteps > 0 ? 'max_iters' : 'completed');
          if (calls.length) down.next(new ActStep(calls));
          else if (!this.output) down.next(done);
          else {
            // Structured output: the answer is checked; a repair turn is a hint and one more step.
            let verdict;
            try {
              verdict = this.output.checkAnswer(this.conversation.reducer.message(), step.final);
            } catch (err) {
              down.error(err);
              return;
            }
            if (verdict.ok) down.next(done);
            else {
              this.conversation.addHint(verdict.hint, { source: 'output' });
              down.next(new ReasonStep(false));
            }
          }
          down.complete();
        },
      }).subscribeTo(events);
    });
  }

  private reasoning(final: boolean): Observable<AgentEvent> {
    const { host, ctx } = this;
    const forced = host.toolChoice !== 'auto' && host.toolChoice !== 'none';
    const toolChoice: ToolChoice = final
      ? 'none'
      : forced && host.resetToolChoice && ctx.iteration > 1
        ? 'auto'
        : host.toolChoice;
    const input: ReasoningInput = {
      messages: this.conversation.messages,
      tools: this.toolList,
      toolChoice,
      options: host.modelOptions,
      model: host.model,
      ...(this.output?.responseFormat ? { responseFormat: this.output.responseFormat } : {}),
    };
    return host.reasoningChain(host.agent, ctx, input, (i) => this.reason(i));
  }

  private reason(input: ReasoningInput): Observable<AgentEvent> {
    const { host, ctx } = this;
    const call = (prompt: string) =>
      host.modelCallChain(
        host.agent,
        ctx,
        {
          model: input.model,
          messages: prompt ? [createMsg('system', prompt, { name: 'system' }), ...input.messages] : input.messages,
          tools: input.tools.map((t) => t.schema),
          toolChoice: input.toolChoice,
          options: input.options,
          ...(input.responseFormat ? { responseFormat: input.responseFormat } : {}),
          signal: ctx.signal,
          attempt: 1,
        },
        (i) => callModel(ctx, i),
      );
    // A prompt that every layer transformed synchronously needs no stream (and events no switchMap).
    return defer(() => {
      // Hints added by the layers of this step go out once, before the model call that includes them.
      const conversation = this.conversation;
      const hints = conversation.takeHints();
      conversation.markStepHintsSeen();
      const prompt = host.systemPrompt(ctx);
      const model = typeof prompt === 'string' ? call(prompt) : prompt.pipe(switchMap(call));
      return hints.length ? concat(from(hints), model) : model;
    });
  }

  /**
   * One acting step: validate every call, decide its permission, then run what may run (and
   * answer what was denied or invalid) in call order; calls that wait for a person or an
   * external executor suspend the reply once the others are done.
   */
  private acting(calls: readonly ToolCallBlock[]): Observable<AgentEvent | Step> {
    return defer(() => {
      const triaged = calls.map((call) => this.triage(prepareCall(call, this.tools)));
      // Stay synchronous unless a permission check is asynchronous.
      return triaged.some((t) => t instanceof Promise)
        ? from(Promise.all(triaged.map((t) => Promise.resolve(t)))).pipe(switchMap((all) => this.execute(all)))
        : this.execute(triaged as Triage[]);
    });
  }

  private triage(prepared: PreparedCall): Triage | Promise<Triage> {
    if (prepared.kind === 'answer') return { kind: 'now', prepared };
    const { call, tool, input } = prepared;
    const failed = (err: unknown): Triage => ({
      kind: 'now',
      prepared: {
        kind: 'answer',
        call,
        status: 'error',
        text: `Permission check of "${tool.name}" failed: ${err instanceof Error ? err.message : String(err)}`,
      },
    });
    const route = (decision: PermissionDecision): Triage => {
      if (decision.behavior === 'deny') return { kind: 'now', prepared: { kind: 'answer', call, status: 'denied', text: decision.reason } };
      if (decision.behavior === 'ask') return { kind: 'confirm', call: { id: call.id, name: call.name, input, reason: decision.reason } };
      if (tool.external) return { kind: 'external', call: { id: call.id, name: call.name, input } };
      return { kind: 'now', prepared };
    };
    try {
      const decision = this.host.decide(tool, input);
      return decision instanceof Promise ? decision.then(route, failed) : route(decision);
    } catch (err) {
      return failed(err);
    }
  }

  /** Runs the calls decided `now` (in call order), then continues or suspends. */
  private execute(triaged: readonly Triage[]): Observable<AgentEvent | Step> {
    const { host, ctx } = this;
    const now = triaged.flatMap((t) => (t.kind === 'now' ? [t.prepared] : []));
    const confirm = triaged.flatMap((t) => (t.kind === 'confirm' ? [t.call] : []));
    const external = triaged.flatMap((t) => (t.kind === 'external' ? [t.call] : []));
    const acting = (i: ActingInput) => host.actingChain(host.agent, ctx, i, (j) => executeTool(ctx, j));
    const calls = runCalls(now, host.maxConcurrentTools, (p) => runCall(ctx, p, acting));
    // The results folded into the reply, then the next step: one relay, not tap + concat + defer.
    return new Observable<AgentEvent | Step>((subscriber) => {
      new Relay<AgentEvent, AgentEvent | Step>(subscriber, {
        next: (e, down) => {
          // Hints added since the last event go out first, in the order the reply message holds them.
          if (this.conversation.hasHints) for (const h of this.conversation.takeHints()) down.next(h);
          this.apply(e);
          down.next(e);
        },
        complete: (down) => {
          for (const e of this.conversation.takeHints()) down.next(e);
          let given: boolean;
          try {
            given = !!this.output?.tool && this.outputGiven(triaged);
          } catch (err) {
            down.error(err);
            return;
          }
          if (confirm.length || external.length) down.next(new SuspendStep(confirm, external));
          else if (given) down.next(new DoneStep('completed'));
          else down.next(new ReasonStep(this.toolSteps >= host.maxIters));
          down.complete();
        },
      }).subscribeTo(calls);
    });
  }

  /** Continues a suspended reply with the answer to its pending calls (validated by the agent). */
  private resumeStep({ pending, event }: ResumeRequest): Observable<AgentEvent | Step> {
    const { host, ctx } = this;
    if (event.type === 'EXTERNAL_EXECUTION_RESULT') {
      const answers = new Map(event.results.map((r) => [r.toolCallId, r]));
      const out: AgentEvent[] = [];
      for (const call of pending.external) {
        const r = answers.get(call.id)!;
        const blockId = newId('blk');
        const output = typeof r.output === 'string' ? toolOutputToContent(r.output) : [...r.output];
        out.push(ctx.event('TOOL_RESULT_START', { blockId, toolCallId: call.id, name: call.name }));
        out.push(ctx.event('TOOL_RESULT_END', { blockId, toolCallId: call.id, status: r.isError ? 'error' : 'success', output }));
      }
      for (const e of out) this.apply(e);
      return concat(from(out), of(this.afterResume(pending.confirm, [])));
    }
    const answers = new Map(event.results.map((r) => [r.toolCallId, r]));
    const triaged: Triage[] = [];
    for (const call of pending.confirm) {
      const answer = answers.get(call.id)!;
      const tool = host.tools.get(call.name)!;
      if (!answer.confirmed) {
        const text = `The user rejected this call${answer.reason ? `: ${answer.reason}` : '.'}`;
        triaged.push({ kind: 'now', prepared: { kind: 'answer', call: blockOf(call), status: 'denied', text } });
        continue;
      }
      if (answer.alwaysAllow) host.alwaysAllow(call.name);
      const input = answer.input !== undefined ? answer.input : call.input;
      if (tool.external) triaged.push({ kind: 'external', call: { id: call.id, name: call.name, input } });
      else triaged.push({ kind: 'now', prepared: { kind: 'run', call: blockOf(call, input), tool, input } });
    }
    return this.executeResumed(triaged, pending.external);
  }

  private executeResumed(triaged: readonly Triage[], stillExternal: readonly PendingToolCall[]): Observable<AgentEvent | Step> {
    return this.execute(triaged).pipe(
      map((v) => {
        if (!isStep(v)) return v;
        const newlyExternal = v instanceof SuspendStep ? v.external : [];
        return this.afterResume([], [...stillExternal, ...newlyExternal]);
      }),
    );
  }

  /** Structured output through the tool: true once it accepted a value (throws when no repair is left). */
  private outputGiven(triaged: readonly Triage[]): boolean {
    const called = triaged.some((t) => t.kind === 'now' && t.prepared.call.name === this.output!.tool!.name);
    return this.output!.afterActing(called);
  }

  private afterResume(confirm: readonly PendingToolCall[], external: readonly PendingToolCall[]): Step {
    if (confirm.length || external.length) return new SuspendStep(confirm, external);
    return new ReasonStep(this.toolSteps >= this.host.maxIters);
  }

  private apply(e: AgentEvent): void {
    this.nested.observe(e);
    this.conversation.apply(e);
    if (e.type === 'MODEL_CALL_END' && e.source === this.ctx.agentName) this.addUsage(e.usage);
  }

  private addUsage(u: Usage): void {
    this.usage.inputTokens += u.inputTokens;
    this.usage.outputTokens += u.outputTokens;
    this.usage.cacheReadTokens += u.cacheReadTokens ?? 0;
    this.usage.reasoningTokens += u.reasoningTokens ?? 0;
  }

  private usageSoFar(): Usage {
    const u = this.usage;
    return {
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      ...(u.cacheReadTokens ? { cacheReadTokens: u.cacheReadTokens } : {}),
      ...(u.reasoningTokens ? { reasoningTokens: u.reasoningTokens } : {}),
    };
  }

  /**
   * Ends the reply: closing events, the conversation (or the suspended reply) updated, the
   * state saved to the session store, then `REPLY_END` (an error end if saving failed).
   */
  private finish(subscriber: Subscriber<AgentEvent>): void {
    const { events, reason, persist } = this.settle();
    const end = (saveError?: unknown): AgentEvent[] => {
      const failed = saveError !== undefined;
      return [
        ...events,
        this.ctx.event('REPLY_END', {
          finishReason: failed ? 'error' : reason,
          usage: this.usageSoFar(),
          ...(failed ? { error: toErrorInfo(saveError) } : reason === 'error' ? { error: toErrorInfo(this.failure) } : {}),
          ...(!failed && this.output?.accepted ? { output: this.output.value } : {}),
          ...(!failed && reason === 'stopped' ? { stopReason: this.stopReason } : {}),
        }),
      ];
    };
    const emit = (out: AgentEvent[]) => {
      for (const e of out) {
        if (subscriber.closed) return;
        subscriber.next(e);
      }
      subscriber.complete();
    };
    // Without a store the end is synchronous: no stream to build for it.
    if (!persist) return emit(end());
    void persist.then(
      () => emit(end()),
      (err: unknown) => emit(end(err ?? new Error('saving the session failed'))),
    );
  }

  /** Runs once: closes the reply and updates the agent; returns the closing events and the save. */
  private settle(): { events: AgentEvent[]; reason: ReplyFinishReason; persist: Promise<void> | undefined } {
    if (this.finished) return { events: [], reason: 'interrupted', persist: undefined };
    this.finished = true;
    this.interrupts.complete();
    const cancelled = !this.done && this.failure === undefined && this.interruptReason === undefined && this.stopReason === undefined;
    const reason: ReplyFinishReason =
      this.failure !== undefined
        ? 'error'
        : this.stopReason !== undefined
          ? 'stopped'
          : this.interruptReason !== undefined || cancelled
            ? 'interrupted'
            : this.done!.reason;
    const { ctx, conversation, host } = this;
    const hints = conversation.takeHints();
    if ((reason === 'awaiting_confirmation' || reason === 'awaiting_external_execution') && this.suspended) {
      const reducer = conversation.reducer;
      host.setPending({
        replyId: ctx.replyId,
        iteration: ctx.iteration,
        toolSteps: this.toolSteps,
        message: reducer.message(),
        confirm: this.suspended.confirm,
        external: this.suspended.external,
        usage: this.usageSoFar(),
        ...(Object.keys(ctx.replyValues).length ? { replyState: structuredClone(ctx.replyValues) } : {}),
      });
      return { events: hints, reason, persist: host.persist() };
    }
    const why =
      reason === 'error'
        ? `the reply failed: ${toErrorInfo(this.failure).message}`
        : reason === 'max_iters'
          ? 'the iteration limit was reached'
          : reason === 'stopped'
            ? `the reply was stopped (${this.stopReason!.message})`
            : `the reply was interrupted${this.interruptReason ? ` (${this.interruptReason})` : ''}`;
    const events = [
      ...hints,
      ...(this.nested.active ? this.nested.close(`the reply of "${ctx.agentName}" ended first (${why})`) : []),
      ...closingEvents(ctx, conversation.reducer, reason === 'error' ? 'error' : 'interrupted', why),
    ];
    conversation.dropStepHints(true);
    host.setPending(undefined);
    const msg = conversation.reducer.message();
    if (msg.content.length) host.append([msg]);
    return { events, reason, persist: host.persist() };
  }
}

function blockOf(call: PendingToolCall, input: unknown = call.input): ToolCallBlock {
  return { type: 'tool_call', id: call.id, name: call.name, arguments: JSON.stringify(input ?? {}) };
}

