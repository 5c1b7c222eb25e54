import { EMPTY, from, Observable, Subject, type Subscriber, type Subscription } from 'rxjs';
import type { AgentEvent, PendingToolCall, ReplyFinishReason, StopReason } from '../../event/events.js';
import type { AgentInput } from '../../middleware/middleware.js';
import { toErrorInfo } from '../../model/model-error.js';
import type { Tool } from '../../tool/tool.js';
import { ReplyTools } from './reply-tools.js';
import { isCancellation } from '../../model/model-error.js';
import { actingStep, resumeStep } from './acting-step.js';
import { closeOpenStream } from '../../event/open-stream.js';
import type { LoopHost, ResumeRequest } from './loop-host.js';
import { journalOf, type ReplyJournalWriter } from './journal-writer.js';
import { NestedReplies } from './nested-replies.js';
import { recoveredEvent, recoveryStep } from './recovery-step.js';
import { Relay } from '../operator-relay.js';
import { reasoningStep } from './reasoning-step.js';
import type { ReplyContext } from './reply-context.js';
import { ReplyConversation } from './reply-conversation.js';
import { isStep, reasonStep, type ReplyStep, type StepOutput, type StepScope } from './steps.js';
import { runSteps } from './step-trampoline.js';
import type { StructuredOutput } from '../structured-output.js';
import { UsageTally } from './usage-tally.js';

/**
 * One reply of the ReAct loop: the innermost `onAgent` step. It emits `REPLY_START`, runs
 * reasoning and acting steps flatly (`runSteps`, a trampoline: a thousand iterations use no
 * more stack than one), and always ends with `REPLY_END`, after closing every open block and
 * answering every unanswered tool call, or after suspending for confirmation or external
 * execution. The reply's message is folded with the same reducer a consumer uses.
 */
export class ReplyRun implements StepScope {
  readonly conversation: ReplyConversation;
  private readonly replyTools: ReplyTools;
  /** Emits when the reply is interrupted or stopped: the running step is torn down and the reply ends. */
  private readonly interrupts = new Subject<string>();
  /** Set by `interrupt()`: the reply ends `interrupted`. */
  private interruptReason: string | undefined;
  /** Set by `ctx.stop()`: the reply ends `stopped` (a policy end, not an error). */
  private stopReason: StopReason | undefined;
  /** Set by `shutdown()`: no step and no tool call starts any more; the reply ends `shutdown`. */
  private shutdownReason: string | undefined;
  /** Set by `cutForShutdown()`: the grace period is over and the running step was torn down. */
  private shutdownCut = false;
  /** A step failed (model, tool chain, output schema): the reply ends `error` with it. */
  private failure: unknown;
  /** The `done` step the steps ended with; none when the reply was cut off before. */
  private done: { readonly reason: ReplyFinishReason } | undefined;
  /** The calls the reply suspended for, kept as the pending reply when it ends. */
  private suspended:
    { readonly confirm: readonly PendingToolCall[]; readonly external: readonly PendingToolCall[] } | undefined;
  /** The reply has been settled (ended or cancelled): nothing more is emitted or stored. */
  private finished = false;
  /** Reasoning steps that ended in tool calls, counted against `maxIters` (carried over a suspension). */
  private actingSteps = 0;
  private readonly usage: UsageTally;
  /** Replies of agents used as tools, forwarded through this one (closed with it when it is cut off). */
  private readonly nested: NestedReplies;
  /** Writes the reply's checkpoints, when the agent's store keeps a journal. */
  private readonly journal: ReplyJournalWriter | undefined;

  constructor(
    readonly host: LoopHost,
    readonly ctx: ReplyContext,
    private readonly resume?: ResumeRequest,
    readonly output?: StructuredOutput,
    replyTools?: readonly Tool[],
  ) {
    const pending = resume?.pending;
    this.conversation = new ReplyConversation(host, ctx, pending?.message);
    ctx.conversationOfReply = this.conversation;
    this.actingSteps = pending?.toolSteps ?? 0;
    this.nested = new NestedReplies(ctx.agentName);
    // The reply's own tools (structured output's final tool, tools passed with the reply) join the agent's.
    this.replyTools = new ReplyTools(host, [...(replyTools ?? []), ...(output?.tool ? [output.tool] : [])]);
    ctx.iteration = pending?.iteration ?? 0;
    this.usage = new UsageTally(pending?.usage);
    this.journal = journalOf(ctx);
  }

  /** The agent's tools (read again at each step) with the reply's own added. */
  get tools(): ReadonlyMap<string, Tool> {
    return this.replyTools.map;
  }

  /** {@link tools} in the order they are offered to the model. */
  get toolList(): readonly Tool[] {
    return this.replyTools.list;
  }

  get toolSteps(): number {
    return this.actingSteps;
  }

  /** True once a shutdown asked the reply to stop at its next safe point. */
  get draining(): boolean {
    return this.shutdownReason !== undefined;
  }

  /**
   * A shutdown: the running model call and tool calls may finish, but nothing new starts; the
   * reply ends `shutdown` at the next step boundary, saved as a pending reply that
   * `RESUME_REPLY` continues (the calls that never started run then).
   */
  shutdown(reason: string): void {
    if (this.finished || this.shutdownReason !== undefined) return;
    this.shutdownReason = reason;
  }

  /**
   * The shutdown's grace period is over: the running step is torn down now (as an interrupt),
   * but the reply still ends `shutdown` and is saved for a resume. False when it had ended.
   */
  cutForShutdown(reason: string): boolean {
    if (this.finished || this.shutdownCut || this.interruptReason !== undefined || this.stopReason !== undefined)
      return false;
    this.shutdownReason ??= reason;
    this.shutdownCut = true;
    this.interrupts.next(reason);
    return true;
  }

  /** Gracefully stops the reply: the running step is cancelled and the reply ends `interrupted`. */
  interrupt(reason: string): void {
    if (this.finished || this.shutdownCut || this.interruptReason !== undefined || this.stopReason !== undefined)
      return;
    this.interruptReason = reason;
    this.interrupts.next(reason);
  }

  /** A middleware ends the reply on purpose (`ctx.stop`): as an interrupt, but it ends `stopped`. */
  stop(reason: StopReason): boolean {
    if (this.finished || this.shutdownCut || this.interruptReason !== undefined || this.stopReason !== undefined)
      return false;
    this.stopReason = { code: reason.code, message: reason.message };
    this.interrupts.next(reason.message);
    return true;
  }

  events(input: AgentInput): Observable<AgentEvent> {
    // One Observable instead of concat(head, steps.pipe(catchError, takeUntil), finish).pipe(finalize):
    // every event of the reply passes one relay here.
    return new Observable<AgentEvent>((subscriber) => {
      this.host.append(input.messages);
      const first: ReplyStep = this.resume
        ? { kind: 'resume', request: this.resume }
        : reasonStep(this.host.maxIters <= 0);
      const start = this.ctx.event('REPLY_START', { sessionId: this.ctx.sessionId });
      this.conversation.apply(start);
      subscriber.next(start);
      // Shared-state changes are emitted as they happen, between REPLY_START and the closing events.
      this.ctx.sharedStateOfReply?.live((e) => {
        if (subscriber.closed) return;
        this.apply(e);
        subscriber.next(e);
      });
      this.journal?.begin(start, () => ({
        step: this.ctx.iteration,
        toolSteps: this.actingSteps,
        usage: this.usage.total(),
      }));
      const recovered = recoveredEvent(this.ctx, this.resume?.pending);
      if (recovered) subscriber.next((this.apply(recovered), recovered));
      const resumed = this.resume?.event;
      if (resumed && resumed.type !== 'RESUME_REPLY')
        subscriber.next(this.ctx.event(resumed.type, { results: resumed.results } as never));
      /** The steps run: false once they ended and the closing events were (or are being) emitted. */
      let stepping = true;
      // Depth of events being passed downstream: an interrupt raised by a consumer while it
      // handles an event stops the steps at once, but the closing events wait until that event
      // has been delivered (else the consumer would see REPLY_END before it, and the event after).
      let emitting = 0;
      /** The steps ended while an event was being delivered: the end follows its delivery. */
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
        interrupt = this.interrupts.subscribe({
          next: () => end(),
          error: (err: unknown) => this.host.reportError(err),
        });
        if (stepping) steps.subscribeTo(runSteps<AgentEvent, ReplyStep>(first, (step) => this.runStep(step), isStep));
        if (!stepping) interrupt.unsubscribe();
      }
      return () => {
        interrupt?.unsubscribe();
        this.ctx.sharedStateOfReply?.close(this.ctx);
        // Cancelled by unsubscribe: store a consistent state; nothing can be emitted any more.
        if (!this.finished) this.settle().persist?.catch((err: unknown) => this.host.reportError(err));
      };
    });
  }

  /** Folds one event into the reply: its message, the nested replies, the usage. */
  apply(e: AgentEvent): void {
    this.nested.observe(e);
    this.journal?.observe(e, this.ctx.agentName);
    this.conversation.apply(e);
    if (e.type === 'MODEL_CALL_END' && e.source === this.ctx.agentName) this.usage.add(e.usage);
  }

  private runStep(step: ReplyStep): Observable<StepOutput> {
    this.journal?.flush(step.kind === 'done' ? step.reason : undefined);
    // A shutdown stops the reply between steps: the step that would start now runs on resume.
    if (this.shutdownReason !== undefined && (step.kind === 'reason' || step.kind === 'act')) {
      if (step.kind === 'act') this.actingSteps++;
      this.done = { reason: 'shutdown' };
      return EMPTY;
    }
    switch (step.kind) {
      case 'reason':
        return reasoningStep(this, step.final);
      case 'act':
        this.actingSteps++;
        return actingStep(this, step.calls);
      case 'resume':
        return step.request.pending.recovered ? recoveryStep(this, step.request) : resumeStep(this, step.request);
      case 'suspend': {
        this.suspended = step;
        const out: StepOutput[] = [];
        if (step.confirm.length) out.push(this.ctx.event('REQUIRE_USER_CONFIRM', { toolCalls: step.confirm }));
        if (step.external.length) out.push(this.ctx.event('REQUIRE_EXTERNAL_EXECUTION', { toolCalls: step.external }));
        out.push({
          kind: 'done',
          reason: step.confirm.length ? 'awaiting_confirmation' : 'awaiting_external_execution',
        });
        return from(out);
      }
      case 'done':
        this.done = step;
        return EMPTY;
    }
  }

  /**
   * Ends the reply: closing events, the conversation (or the suspended reply) updated, the
   * state saved to the session store, then `REPLY_END` (an error end if saving failed).
   */
  private finish(subscriber: Subscriber<AgentEvent>): void {
    this.ctx.sharedStateOfReply?.close(this.ctx);
    const { events, reason, persist } = this.settle();
    const end = (saveError?: unknown): AgentEvent[] => {
      const failed = saveError !== undefined;
      return [
        ...events,
        this.ctx.event('REPLY_END', {
          finishReason: failed ? 'error' : reason,
          usage: this.usage.total(),
          ...(failed
            ? { error: toErrorInfo(saveError) }
            : reason === 'error'
              ? { error: toErrorInfo(this.failure) }
              : {}),
          ...(!failed && this.output?.accepted ? { output: this.output.value } : {}),
          ...(!failed && reason === 'stopped' ? { stopReason: this.stopReason } : {}),
          ...(!failed && reason === 'shutdown'
            ? { stopReason: { code: 'shutdown', message: this.shutdownReason! } }
            : {}),
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
    const reason = this.finishReason();
    const { ctx, conversation, host } = this;
    const hints = conversation.takeHints();
    if ((reason === 'awaiting_confirmation' || reason === 'awaiting_external_execution') && this.suspended) {
      host.setPending({
        replyId: ctx.replyId,
        iteration: ctx.iteration,
        toolSteps: this.actingSteps,
        message: conversation.reducer.message(),
        confirm: this.suspended.confirm,
        external: this.suspended.external,
        usage: this.usage.total(),
        ...(Object.keys(ctx.replyValues).length ? { replyState: structuredClone(ctx.replyValues) } : {}),
        ...(this.output ? { output: this.output.persisted() } : {}),
      });
      return { events: hints, reason, persist: host.persist() };
    }
    if (reason === 'shutdown') return this.suspendForShutdown(hints);
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
      ...closeOpenStream(ctx, conversation.reducer, { status: reason === 'error' ? 'error' : 'interrupted', why }),
    ];
    conversation.dropStepHints(true);
    host.setPending(undefined);
    const msg = conversation.reducer.message();
    if (msg.content.length) host.append([msg]);
    return { events, reason, persist: host.persist() };
  }

  /**
   * Saves the reply cut off by a shutdown as the pending reply: open blocks closed, a tool call
   * cut off in its grace period answered `interrupted` (not re-run: it may have had effects),
   * the calls that never started kept without a result for the resume to run. The calls of a
   * model call cut off are answered: they never ran and their arguments may be incomplete.
   */
  private suspendForShutdown(hints: AgentEvent[]): {
    events: AgentEvent[];
    reason: ReplyFinishReason;
    persist: Promise<void> | undefined;
  } {
    const { ctx, conversation, host } = this;
    const why = `the service shut down (${this.shutdownReason})`;
    const modelCut = conversation.reducer.openModelCalls().length > 0;
    const events = [
      ...hints,
      ...(this.nested.active ? this.nested.close(`the reply of "${ctx.agentName}" ended first (${why})`) : []),
      ...closeOpenStream(ctx, conversation.reducer, { status: 'interrupted', why, answerCalls: modelCut }),
    ];
    host.setPending({
      replyId: ctx.replyId,
      iteration: ctx.iteration,
      toolSteps: this.actingSteps,
      message: conversation.reducer.message(),
      confirm: [],
      external: [],
      usage: this.usage.total(),
      ...(Object.keys(ctx.replyValues).length ? { replyState: structuredClone(ctx.replyValues) } : {}),
      ...(this.output ? { output: this.output.persisted() } : {}),
      shutdown: { reason: this.shutdownReason!, at: Date.now() },
    });
    return { events, reason: 'shutdown', persist: host.persist() };
  }

  /**
   * A failure wins over a stop, a stop over a shutdown, a shutdown over an interrupt; a reply
   * cancelled before its end counts as interrupted.
   */
  private finishReason(): ReplyFinishReason {
    // A step that failed only because the interrupt cancelled it (an interrupt right at REPLY_START,
    // before the step listened for it) was interrupted, not failed.
    const cancelledByInterrupt = this.interruptReason !== undefined && isCancellation(this.failure);
    if (this.failure !== undefined && !cancelledByInterrupt) return 'error';
    if (this.stopReason !== undefined) return 'stopped';
    if (this.shutdownCut) return 'shutdown';
    if (this.interruptReason !== undefined || !this.done) return 'interrupted';
    return this.done.reason;
  }
}
