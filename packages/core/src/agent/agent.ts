import type { StandardSchemaV1 } from '@standard-schema/spec';
import { type Observable, switchMap } from 'rxjs';
import type { AgentEvent, ReplyEndEvent } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import type { AgentHandle } from '../middleware/agent-handle.js';
import type { Middleware } from '../middleware/middleware.js';
import type { ChatModel } from '../model/chat-model.js';
import { Permissions } from '../permission/permissions.js';
import type { AgentStateSnapshot, PendingReply } from '../state/snapshot.js';
import type { Tool } from '../tool/tool.js';
import { newId } from '../util/id.js';
import type { AgentOptions, ReplyInput } from './agent-options.js';
import { agentAsTool, type AgentToolOptions, type DefaultAgentToolInput } from './agent-tool.js';
import { callResult } from './call-result.js';
import { chainsFor } from './loop/chains.js';
import {
  refuseWhenShutDown,
  shutdownReply,
  type AgentShutdownOptions,
  type AgentShutdownResult,
  type RunningReply,
} from './agent-shutdown.js';
import { createLoopHost, type LoopHost } from './loop/loop-host.js';
import type { WhilePending } from './loop/pending-reply-policy.js';
import { ReplyContext } from './loop/reply-context.js';
import { ReplyQueue } from './reply-queue.js';
import { claimPending } from './session-claim.js';
import { ReplyRun } from './loop/reply-run.js';
import { replyStream } from './loop/reply-stream.js';
import { prepareReplyInput } from './loop/reply-input.js';
import { resumeOutput } from './loop/resume-validation.js';
import { sentMessage } from './send-inbox.js';
import { SessionState } from './session-state.js';
import type { StoreSync } from './store-sync.js';
import { loadFor, storeSyncOf, type JournalSync, type RecoverableReply } from './journal-sync.js';
import { structuredOutputOf, type ReplyOptions } from './structured-output.js';
import { forkedState, noteForkSave, rewoundState, type AgentForkOptions, type AgentRewindOptions } from './fork.js';
import { systemPromptThrough } from './loop/system-prompt.js';
import { withTools } from './loop/reply-tools.js';
import { AgentTools } from './agent-tools.js';
import { checkReplyTools, validateAgentOptions } from './validate-options.js';
import { checkUserId, claimSession } from './user-identity.js';

export type { AgentOptions, ReplyInput, ResumeInput, ResumeReplyInput } from './agent-options.js';

/**
 * An agent: one ReAct loop whose every phase is an RxJS stream wrapped by middlewares.
 *
 * @example
 * ```ts
 * const agent = new Agent({ name: 'assistant', sysPrompt: 'You are helpful.', model, tools: [add] });
 * agent.reply('What is 2 + 3?').subscribe((e) => e.type === 'TEXT_BLOCK_DELTA' && process.stdout.write(e.delta));
 * const msg = await agent.call('And 4 + 5?');
 * ```
 */
export class Agent implements AgentHandle {
  /** The agent's name: the `source` of its events. */
  readonly name: string;
  /** The session this agent's state belongs to (`ctx.sessionId`, the key in the store). */
  readonly sessionId: string;
  /** The model of its reasoning steps. */
  readonly model: ChatModel;
  /** Its middlewares, first = outermost. */
  readonly middlewares: readonly Middleware[];
  /** Permission mode and rules; change them at runtime, they persist with the state. */
  readonly permissions: Permissions;
  private readonly host: LoopHost;
  private readonly queue = new ReplyQueue();
  private readonly agentChain;
  private readonly promptLayers: readonly Middleware[];
  private readonly sysPrompt: string;
  /** Its own tools and the middlewares' `tools()`, read again at each step. */
  private readonly agentTools: AgentTools;
  private readonly whilePending: WhilePending;
  private readonly onBackgroundError: (error: unknown) => void;
  /** Conversation, middleware state, permissions and suspended reply: what `saveState()` writes. */
  private readonly state: SessionState;
  /** Loads and saves `state` through the session store, when there is one. */
  private readonly sync: StoreSync | undefined;
  private readonly journal: JournalSync | undefined; // step checkpoints, when the store keeps a journal
  /** The running reply, for `interrupt()` and `shutdown()`. */
  private current: RunningReply | undefined;
  /** Set by `shutdown()`: why the agent takes no new work. */
  private closedFor: string | undefined;
  /** The middlewares' `onShutdown` hooks, started by the first `shutdown()` once its reply ended. */
  private middlewaresDown: Promise<void> | undefined;

  constructor(private readonly options: AgentOptions) {
    validateAgentOptions(options);
    this.name = options.name ?? 'assistant';
    this.model = options.model;
    this.middlewares = options.middlewares ?? [];
    this.sysPrompt = options.sysPrompt ?? '';
    this.whilePending = options.whilePending ?? 'reject-pending';
    this.onBackgroundError = options.onBackgroundError ?? ((e) => console.error('[rxscope]', e));
    this.permissions = new Permissions(options.permissions);
    this.state = new SessionState(this.permissions);
    this.sessionId = this.state.begin(options.state, options.sessionId);
    const reportError = (e: unknown) => this.onBackgroundError(e);
    [this.sync, this.journal] = storeSyncOf(options, this.sessionId, this.state, () => this.saveState(), reportError);
    const tools = (this.agentTools = new AgentTools(options.tools ?? [], this.middlewares));
    const chains = chainsFor(this.middlewares);
    this.agentChain = chains.agent;
    this.promptLayers = chains.promptLayers;
    this.host = createLoopHost({
      agent: this,
      options,
      state: this.state,
      tools,
      chains,
      maxIters: options.maxIters ?? 20, // validateAgentOptions checked it, and that a store has a sessionId
      systemPrompt: (ctx) => systemPromptThrough(this.promptLayers, this, ctx, this.sysPrompt),
      persist: () => (this.journal ? this.journal.persist() : this.sync?.persist()),
      reportError,
    });
  }

  /**
   * Every tool offered to the model: the agent's own, then those of its middlewares. A
   * middleware's `tools()` is read again at each step, so a middleware whose tools change (an
   * MCP server announcing a changed list) changes what the agent offers at its next model request.
   */
  get tools(): readonly Tool[] {
    return this.agentTools.list;
  }

  /** The agent's own tools (its `tools` option), without those its middlewares offer. */
  get ownTools(): readonly Tool[] {
    return this.agentTools.ownList;
  }

  /** The conversation so far (user messages and reply messages). */
  get context(): readonly Msg[] {
    return this.state.context;
  }

  /** Messages sent with {@link Agent.send} that have not joined a reply yet, oldest first. */
  get queued(): readonly Msg[] {
    return this.state.inbox.messages;
  }

  /** The suspended reply waiting for `USER_CONFIRM_RESULT` or `EXTERNAL_EXECUTION_RESULT`, if any. */
  get pending(): PendingReply | undefined {
    return this.state.pending;
  }

  /** True while a reply runs. */
  get busy(): boolean {
    return this.queue.running;
  }

  /** True once `shutdown()` was called: the agent refuses new replies and messages. */
  get shuttingDown(): boolean {
    return this.closedFor !== undefined;
  }

  /**
   * Runs one reply. Pass a `USER_CONFIRM_RESULT` or `EXTERNAL_EXECUTION_RESULT` to continue a
   * suspended reply (`{type: 'RESUME_REPLY'}` for one a shutdown saved).
   *
   * - **Cold.** Nothing happens until subscribe, and **each subscription runs one more reply**
   *   (the input is sent again and both replies join the conversation): two `async` pipes on one
   *   `reply()` Observable run two replies. Subscribe once and share the events
   *   (`share()`/`shareReplay()`) when several consumers need them.
   * - **Failures are events, not Observable errors.** A failed model call ends the stream with
   *   `REPLY_END {finishReason: 'error', error}` and completes, so `catchError` and `retry` never
   *   see it. Pipe through `throwOnErrorEnd()` to get an error notification (an `AgentError`)
   *   instead. The stream errors only for input refused before the reply starts (`AgentUsageError`).
   * - Unsubscribing cancels the reply (model request and tools included). Replies queue one at a time.
   *
   * @example
   * ```ts
   * const sub = agent.reply('Summarise this file').subscribe(render);
   * cancelButton.onclick = () => sub.unsubscribe();
   *
   * // RxJS error semantics: retry once, then show the failure
   * agent.reply('hi').pipe(throwOnErrorEnd(), retry(1), catchError((e: unknown) => of((e as AgentError).info.message)));
   * ```
   */
  reply(input: ReplyInput, options: ReplyOptions = {}): Observable<AgentEvent> {
    checkUserId(options.userId);
    return this.queue.run(
      () => {
        refuseWhenShutDown(this.name, this.closedFor, 'reply');
        return this.sync
          ? loadFor(input, this.sync, this.journal).pipe(switchMap((i) => this.startReply(i, options)))
          : this.startReply(input, options);
      },
      () => claimPending(this),
    );
  }

  /**
   * Runs one reply and resolves with its message (`metadata.finishReason`, `metadata.usage`,
   * `metadata.replyId`), or rejects with an {@link AgentError} when it ends with an error.
   *
   * @example
   * ```ts
   * const msg = await agent.call('What is 2 + 3?');
   * console.log(textOfMsg(msg));
   * ```
   */
  call<S extends StandardSchemaV1>(
    input: ReplyInput,
    options: ReplyOptions<S> & { readonly output: S },
  ): Promise<StandardSchemaV1.InferOutput<S>>;
  call(input: ReplyInput, options?: ReplyOptions): Promise<Msg>;
  call(input: ReplyInput, options: ReplyOptions = {}): Promise<unknown> {
    return callResult(() => this.reply(input, options), this.name, options.output !== undefined);
  }

  /**
   * Sends a user message into the running reply: it joins the conversation at that reply's next
   * reasoning step (the very next model request includes it), is emitted once as `HINT_BLOCK`
   * with `hintSource: 'user'`, and is kept in the reply message (`saveState()` holds it; models
   * receive it as a user turn). A message sent while the model writes what would be the final
   * answer gets the reply one more reasoning step. Sent while no reply runs, it joins the next
   * reply after that reply's own input. Messages keep their order; until they join a reply they
   * are part of the saved state, so an interrupted or suspended reply delivers them on the next
   * reply or the resume, in this agent or one restored from its state. Takes text (a string, or
   * a user message of text blocks); throws an {@link AgentUsageError} for anything else.
   *
   * @example
   * ```ts
   * agent.reply('Refactor the parser').subscribe(render);
   * input.onsubmit = () => agent.send(input.value); // the agent reads it before its next model call
   * ```
   */
  send(message: string | Msg): void {
    refuseWhenShutDown(this.name, this.closedFor, 'message');
    this.state.inbox.push(sentMessage(message));
  }

  /**
   * This agent as a tool of another agent: each call runs one reply of this agent, whose events
   * stream through the caller's reply with this agent's name as `source`; the reply's final text
   * is the tool result; cancelling the caller cancels this reply. Calls queue, one reply at a time.
   *
   * @example
   * ```ts
   * const researcher = new Agent({ name: 'researcher', model, tools: [webSearch] });
   * const lead = new Agent({ name: 'lead', model, tools: [researcher.asTool({ description: 'Researches a question.' })] });
   * ```
   */
  asTool<S extends StandardSchemaV1 = DefaultAgentToolInput>(
    options: AgentToolOptions<S>,
  ): Tool<StandardSchemaV1.InferOutput<S>> {
    return agentAsTool(this, options);
  }

  /**
   * Gracefully stops the running reply: it ends with `finishReason: 'interrupted'`, keeping the
   * partial text and answering unfinished tool calls with `interrupted` results.
   *
   * @example
   * ```ts
   * setTimeout(() => agent.interrupt('user pressed stop'), 5_000);
   * ```
   */
  interrupt(reason = 'interrupted by the caller'): void {
    const current = this.current;
    if (!current) return;
    current.run.interrupt(reason);
    current.controller.abort(new Error(reason));
  }

  /**
   * Shuts the agent down gracefully (a service stopping, e.g. on SIGTERM): from now on it refuses
   * new replies, resumes and `send()` with an {@link AgentShutdownError} (replies queued behind
   * the running one included). The running reply stops at its next safe point: its running model
   * call and tool calls may finish, nothing new starts, and it ends with `REPLY_END {finishReason:
   * 'shutdown', stopReason: {code: 'shutdown', message: reason}}`, every block closed, its state
   * saved (to the session store, when there is one) as a pending reply that
   * `{type: 'RESUME_REPLY'}` continues here or in another process: the tool calls that had not
   * started run then. A reply that finishes within the grace period just ends as usual. After
   * `graceMs` the running step is cut off: a tool call still running is aborted and answered
   * `interrupted` (it is not run again on resume, since it may have had effects; the model sees
   * that it was cut off). Resolves once the reply's stream is over and its state is saved, and
   * each middleware's `onShutdown` (closing what it holds open, such as MCP connections) settled.
   *
   * @example
   * ```ts
   * process.once('SIGTERM', async () => {
   *   const { finishReason } = await agent.shutdown({ graceMs: 10_000, reason: 'received SIGTERM' });
   *   process.exit(0); // finishReason 'shutdown': the next process continues it with agent.reply({ type: 'RESUME_REPLY' })
   * });
   * ```
   */
  async shutdown(options: AgentShutdownOptions = {}): Promise<AgentShutdownResult> {
    const reason = options.reason ?? 'the agent was shut down';
    this.closedFor ??= reason;
    const graceMs = options.graceMs ?? 10_000;
    const outcome = await shutdownReply(this.current, reason, graceMs, () => this.sync?.flushed() ?? Promise.resolve());
    this.middlewaresDown ??= this.shutDownMiddlewares();
    await this.middlewaresDown;
    return { agentName: this.name, sessionId: this.sessionId, ...outcome };
  }

  /**
   * A JSON-serialisable, versioned snapshot: conversation, summary, middleware state,
   * permission settings and the suspended reply (with its reply id and iteration).
   *
   * @example
   * ```ts
   * await writeFile('agent.json', JSON.stringify(agent.saveState()));
   * ```
   */
  saveState(): AgentStateSnapshot {
    return this.state.snapshot(this.name, this.sessionId);
  }

  /**
   * A new agent (same options, new `sessionId`) whose conversation is this one's up to message
   * `upTo` (inclusive; or `before` it): see `AgentForkOptions`. Saved to the store, if any, at once.
   * @example `const alt = agent.fork({ upTo: agent.context[1]!.id }); await alt.call('What if…?');`
   */
  fork(options: AgentForkOptions): Agent {
    const state = forkedState(this.saveState(), this.middlewares, options);
    const forked = new Agent({ ...this.options, state, sessionId: options.sessionId ?? newId('session') });
    noteForkSave(forked, forked.sync?.persist(), forked.onBackgroundError);
    return forked;
  }

  /**
   * {@link Agent.fork} in place (`to` inclusive, or `before`): drops the later messages and any
   * suspended reply; refused while a reply runs. See `AgentRewindOptions`.
   * @example `agent.rewind({ before: question.id }); await agent.call('The edited question');`
   */
  rewind(options: AgentRewindOptions): void {
    this.state.restore(rewoundState(this.saveState(), this.middlewares, options, this.busy));
    this.sync?.persist().catch((e: unknown) => this.onBackgroundError(e));
  }

  /**
   * The reply this session's last process left running (it died mid-reply), if its journal holds
   * one: continue it with `agent.reply({ type: 'RECOVER_REPLY' })`. `undefined` while a reply runs here.
   * @example
   * ```ts
   * if (await agent.recoverable()) agent.reply({ type: 'RECOVER_REPLY' }).subscribe(render);
   * ```
   */
  recoverable(): Promise<RecoverableReply | undefined> {
    return this.busy || !this.journal ? Promise.resolve(undefined) : this.journal.recoverable();
  }

  /** Each middleware's `onShutdown`, in parallel; failures go to `onBackgroundError`. */
  private async shutDownMiddlewares(): Promise<void> {
    const settled = await Promise.allSettled(this.middlewares.map(async (m) => m.onShutdown?.(this)));
    for (const s of settled) if (s.status === 'rejected') this.onBackgroundError(s.reason);
  }

  private startReply(input: ReplyInput, options: ReplyOptions): Observable<AgentEvent> {
    const before = this.state.context.length;
    const output = options.output ? structuredOutputOf(this.name, this.model, this.agentTools.map, options) : undefined;
    if (options.tools !== undefined) checkReplyTools(options.tools, this.agentTools.map);
    const replyTools = options.tools?.length ? options.tools : undefined;
    const prepared = prepareReplyInput(input, {
      name: this.name,
      sessionId: this.sessionId,
      state: this.state,
      whilePending: this.whilePending,
      tools: replyTools ? withTools(this.agentTools.map, replyTools) : this.agentTools.map,
    });
    if (prepared.resume) resumeOutput(prepared.resume.pending, output);
    const { ctx, controller } = ReplyContext.open(
      this.name,
      this.sessionId,
      this.state.middlewareState,
      prepared.resume?.pending,
      claimSession(this.state, this.sessionId, options.userId),
    );
    this.journal?.attach(ctx, before, prepared.resume !== undefined);
    ctx.sharedStateOfReply = this.state.shared.open(ctx, options.sharedState);
    const run = new ReplyRun(this.host, ctx, prepared.resume, output, replyTools);
    ctx.onStop = (reason) => {
      if (run.stop(reason)) controller.abort(new Error(`the reply was stopped: ${reason.message}`));
    };
    let markEnded!: (end: ReplyEndEvent | undefined) => void;
    const current: RunningReply = { run, controller, ended: new Promise((resolve) => (markEnded = resolve)) };
    this.current = current;
    const agentInput = prepared.resume
      ? { messages: [], resume: prepared.resume.event }
      : { messages: prepared.messages };
    return replyStream({
      source: this.name,
      sessionId: this.sessionId,
      ctx,
      controller,
      chain: this.agentChain(this, ctx, agentInput, (i) => run.events(i)),
      foldOuter: this.middlewares.some((m) => m.onAgent !== undefined),
      head: prepared.rejected ? [prepared.rejected(ctx)] : [],
      reportError: (error) => this.onBackgroundError(error),
      finished: (end) => {
        if (this.current === current) this.current = undefined;
        markEnded(end);
      },
    });
  }
}
