import type { z } from 'zod';
import { concatMap, defer, from, lastValueFrom, map, Observable, of, reduce, switchMap } from 'rxjs';
import type { AgentEvent, ReplyEndEvent } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import { createMsg } from '../message/msg.js';
import { createReplyReducer } from '../message/reducer.js';
import type { Middleware } from '../middleware/middleware.js';
import type { ChatModel } from '../model/chat-model.js';
import { toErrorInfo } from '../model/model-error.js';
import { Permissions } from '../permission/permissions.js';
import { parseAgentState, type AgentStateSnapshot, type PendingReply } from '../state/snapshot.js';
import type { Tool } from '../tool/tool.js';
import { newId } from '../util/id.js';
import type { AgentOptions, ReplyInput } from './agent-options.js';
import { agentAsTool, type AgentToolOptions, type DefaultAgentToolInput } from './agent-tool.js';
import { chainsFor } from './chains.js';
import { closeOpenStream } from '../event/open-stream.js';
import { AgentError, AgentUsageError } from './errors.js';
import { createLoopHost, type LoopHost, type ResumeRequest } from './loop-host.js';
import { Relay } from './operator-relay.js';
import { closePendingReply, type WhilePending } from './pending-reply-policy.js';
import { ReplyContext } from './reply-context.js';
import { ReplyQueue } from './reply-queue.js';
import { ReplyRun } from './reply-run.js';
import { resumeOutput, validateResume } from './resume-validation.js';
import { sentMessage } from './send-inbox.js';
import { SessionState } from './session-state.js';
import { StoreSync } from './store-sync.js';
import { OUTPUT_TOOL_NAME, StructuredOutput, type ReplyOptions } from './structured-output.js';
import { systemPromptThrough } from './system-prompt.js';
import { withTools } from './reply-tools.js';
import { checkReplyTools, validateAgentOptions } from './validate-options.js';

export type { AgentOptions, ReplyInput, ResumeInput } from './agent-options.js';

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
export class Agent {
  /** The agent's name: the `source` of its events. */
  readonly name: string;
  /** The session this agent's state belongs to (`ctx.sessionId`, the key in the store). */
  readonly sessionId: string;
  /** The model of its reasoning steps. */
  readonly model: ChatModel;
  /** Its middlewares, first = outermost. */
  readonly middlewares: readonly Middleware[];
  /** Every tool offered to the model: the agent's own, then those of its middlewares. */
  readonly tools: readonly Tool[];
  /** Permission mode and rules; change them at runtime, they persist with the state. */
  readonly permissions: Permissions;
  private readonly host: LoopHost;
  private readonly queue = new ReplyQueue();
  private readonly agentChain;
  private readonly promptLayers: readonly Middleware[];
  private readonly sysPrompt: string;
  private readonly toolMap: ReadonlyMap<string, Tool>;
  private readonly whilePending: WhilePending;
  private readonly onBackgroundError: (error: unknown) => void;
  /** Conversation, middleware state, permissions and suspended reply: what `saveState()` writes. */
  private readonly state: SessionState;
  /** Loads and saves `state` through the session store, when there is one. */
  private readonly sync: StoreSync | undefined;
  /** The running reply, for `interrupt()`. */
  private current: { run: ReplyRun; controller: AbortController } | undefined;

  constructor(options: AgentOptions) {
    validateAgentOptions(options);
    this.name = options.name ?? 'assistant';
    this.model = options.model;
    this.middlewares = options.middlewares ?? [];
    this.sysPrompt = options.sysPrompt ?? '';
    this.whilePending = options.whilePending ?? 'reject-pending';
    this.onBackgroundError = options.onBackgroundError ?? ((e) => console.error('[rxscope]', e));
    this.permissions = new Permissions(options.permissions);
    this.state = new SessionState(this.permissions);
    if (options.store && !options.sessionId) {
      throw new AgentUsageError('An agent with a session store needs a sessionId (the key its state is stored under).');
    }
    if (options.state !== undefined) {
      const snapshot = parseAgentState(options.state);
      this.state.restore(snapshot);
      this.sessionId = options.sessionId ?? snapshot.sessionId;
    } else {
      this.sessionId = options.sessionId ?? newId('session');
    }
    const store = options.store;
    this.sync = store
      ? new StoreSync(
          store,
          this.sessionId,
          () => this.saveState(),
          (snapshot) => this.state.restore(snapshot, true),
          (snapshot) => this.state.inbox.saved(snapshot.inbox),
        )
      : undefined;
    const tools = new Map<string, Tool>();
    for (const tool of [...(options.tools ?? []), ...this.middlewares.flatMap((m) => m.tools?.() ?? [])]) {
      if (tools.has(tool.name)) throw new AgentUsageError(`Two tools are named "${tool.name}"; tool names must be unique.`);
      tools.set(tool.name, tool);
    }
    this.toolMap = tools;
    this.tools = [...tools.values()];
    const maxIters = options.maxIters ?? 20;
    if (!Number.isInteger(maxIters) || maxIters < 0) throw new AgentUsageError(`maxIters must be a non-negative integer, got ${maxIters}.`);
    const chains = chainsFor(this.middlewares);
    this.agentChain = chains.agent;
    this.promptLayers = chains.promptLayers;
    this.host = createLoopHost({
      agent: this,
      options,
      state: this.state,
      tools,
      chains,
      maxIters,
      systemPrompt: (ctx) => systemPromptThrough(this.promptLayers, this, ctx, this.sysPrompt),
      persist: () => this.sync?.persist(),
      reportError: (error) => this.onBackgroundError(error),
    });
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

  /**
   * Runs one reply. Pass a `USER_CONFIRM_RESULT` or `EXTERNAL_EXECUTION_RESULT` to continue a
   * suspended reply.
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
    return this.queue.run(() =>
      this.sync ? this.sync.load().pipe(switchMap(() => this.startReply(input, options))) : this.startReply(input, options),
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
  call<S extends z.ZodType>(input: ReplyInput, options: ReplyOptions<S> & { readonly output: S }): Promise<z.output<S>>;
  call(input: ReplyInput, options?: ReplyOptions): Promise<Msg>;
  call(input: ReplyInput, options: ReplyOptions = {}): Promise<unknown> {
    // reduce() always emits, so the stream is never empty.
    // eslint-disable-next-line rxjs-x/no-ignored-default-value
    return lastValueFrom(
      defer(() => {
        const reducer = createReplyReducer({ source: this.name });
        let end: ReplyEndEvent | undefined;
        return this.reply(input, options).pipe(
          reduce((count, e) => {
            reducer.apply(e);
            if (e.type === 'REPLY_END' && e.source === this.name) end = e;
            return count + 1;
          }, 0),
          map(() => {
            if (!end) throw new AgentError({ name: 'Error', message: 'the reply ended without REPLY_END' }, '');
            if (end.finishReason === 'error') throw new AgentError(end.error ?? { name: 'Error', message: 'unknown error' }, end.replyId);
            if (options.output) {
              if (!('output' in end)) {
                const message = `the reply ended (${end.finishReason}) without an output`;
                throw new AgentError({ name: 'OutputMissingError', message, code: 'output_missing' }, end.replyId, end.finishReason);
              }
              return end.output;
            }
            const msg = reducer.message();
            const stopReason = end.stopReason ? { stopReason: end.stopReason } : {};
            return {
              ...msg,
              metadata: { ...msg.metadata, replyId: end.replyId, finishReason: end.finishReason, usage: end.usage, ...stopReason },
            };
          }),
        );
      }),
    );
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
  asTool<S extends z.ZodType = DefaultAgentToolInput>(options: AgentToolOptions<S>): Tool<z.output<S>> {
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

  private startReply(input: ReplyInput, options: ReplyOptions): Observable<AgentEvent> {
    const output = options.output ? this.structuredOutput(options) : undefined;
    if (options.tools !== undefined) checkReplyTools(options.tools, this.toolMap);
    const replyTools = options.tools?.length ? options.tools : undefined;
    const prepared = this.prepareInput(input, replyTools);
    if (prepared.resume) resumeOutput(prepared.resume.pending, output);
    const controller = new AbortController();
    const replyId = prepared.resume?.pending.replyId ?? newId('reply');
    const replyValues = structuredClone({ ...prepared.resume?.pending.replyState });
    const ctx = new ReplyContext(this.name, replyId, this.sessionId, controller.signal, this.state.middlewareState, replyValues);
    const run = new ReplyRun(this.host, ctx, prepared.resume, output, replyTools);
    ctx.onStop = (reason) => {
      if (run.stop(reason)) controller.abort(new Error(`the reply was stopped: ${reason.message}`));
    };
    this.current = { run, controller };
    let ended = false;
    let started = false;
    const outer = this.middlewares.some((m) => m.onAgent !== undefined) ? createReplyReducer({ source: this.name }) : undefined;
    const agentInput = prepared.resume ? { messages: [], resume: prepared.resume.event } : { messages: prepared.messages };
    const head: AgentEvent[] = prepared.rejected ? [prepared.rejected(ctx)] : [];
    const chain = this.agentChain(this, ctx, agentInput, (i) => run.events(i));
    // One relay instead of tap + catchError + finalize: every event of the reply passes it.
    const events = new Observable<AgentEvent>((subscriber) => {
      new Relay<AgentEvent>(subscriber, {
        next: (e, down) => {
          if (e.source === this.name) {
            outer?.apply(e);
            if (e.type === 'REPLY_START') started = true;
            else if (e.type === 'REPLY_END') ended = true;
          }
          down.next(e);
        },
        error: (err, down) => {
          // Only a failure of an onAgent layer itself reaches here; the loop ends its own failures.
          if (ended) {
            this.onBackgroundError(err);
            down.complete();
            return;
          }
          ended = true;
          const closing: AgentEvent[] = started ? [] : [ctx.event('REPLY_START', { sessionId: this.sessionId })];
          if (outer) closing.push(...closeOpenStream(ctx, outer, { status: 'error', why: `the reply failed: ${toErrorInfo(err).message}` }));
          closing.push(ctx.event('REPLY_END', { finishReason: 'error', error: toErrorInfo(err) }));
          for (const e of closing) down.next(e);
          down.complete();
        },
      }).subscribeTo(chain);
      return () => {
        if (!ended) controller.abort(new Error('reply cancelled'));
        if (this.current?.run === run) this.current = undefined;
      };
    });
    if (!head.length) return events;
    // The notice about rejected pending calls goes right after REPLY_START.
    let first = true;
    return events.pipe(concatMap((e) => (first && e.type === 'REPLY_START' ? ((first = false), from([e, ...head])) : of(e))));
  }

  private structuredOutput(options: ReplyOptions): StructuredOutput {
    if (this.toolMap.has(OUTPUT_TOOL_NAME) && !this.model.supportsResponseFormat) {
      throw new AgentUsageError(
        `Agent "${this.name}" has a tool named "${OUTPUT_TOOL_NAME}", the name structured output uses; rename that tool.`,
      );
    }
    return new StructuredOutput(options.output!, this.model.supportsResponseFormat === true, options.outputRepairs ?? 2);
  }

  /**
   * Turns the input into new messages or a validated resume. Refusals throw before anything
   * changes; a plain message while a reply waits answers the pending calls first (policy
   * `reject-pending`), noted in the new reply by a `CUSTOM` `pending_calls_rejected` event.
   */
  private prepareInput(input: ReplyInput, replyTools?: readonly Tool[]): {
    messages: Msg[];
    resume?: ResumeRequest;
    rejected?: (ctx: ReplyContext) => AgentEvent;
  } {
    if (typeof input === 'object' && !Array.isArray(input) && 'type' in input) {
      const resume = input;
      if (resume.type === 'USER_CONFIRM_RESULT' || resume.type === 'EXTERNAL_EXECUTION_RESULT') {
        return { messages: [], resume: validateResume(resume, this.state.pending, this.name, replyTools ? withTools(this.toolMap, replyTools) : this.toolMap) };
      }
    }
    const messages =
      typeof input === 'string' ? [createMsg('user', input)] : Array.isArray(input) ? [...(input as readonly Msg[])] : [input as Msg];
    const pending = this.state.pending;
    if (!pending) return { messages };
    const closed = closePendingReply(pending, this.whilePending, this.name, this.sessionId);
    this.state.append([closed.message]);
    this.state.pending = undefined;
    return { messages, rejected: closed.notice };
  }
}
