import type { z } from 'zod';
import { concatMap, defaultIfEmpty, defer, from, lastValueFrom, map, Observable, of, reduce, switchMap, take } from 'rxjs';
import type {
  AgentEvent,
  ConfirmResult,
  ExternalExecutionResultEvent,
  ExternalResult,
  ReplyEndEvent,
  UserConfirmResultEvent,
} from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import { createMsg } from '../message/msg.js';
import { createReplyReducer } from '../message/reducer.js';
import type { Middleware } from '../middleware/middleware.js';
import type { ChatModel, ModelOptions, ToolChoice } from '../model/chat-model.js';
import { toErrorInfo } from '../model/model-error.js';
import { decidePermission } from '../permission/engine.js';
import { Permissions } from '../permission/permissions.js';
import type { PermissionState } from '../permission/rules.js';
import type { SessionStore } from '../state/session-store.js';
import { parseAgentState, STATE_VERSION, type AgentStateSnapshot, type PendingReply } from '../state/snapshot.js';
import type { Tool } from '../tool/tool.js';
import { validateToolInput } from '../tool/validate.js';
import { newId } from '../util/id.js';
import { resultEvents } from './acting.js';
import { OUTPUT_TOOL_NAME, StructuredOutput, type ReplyOptions } from './structured-output.js';
import { agentAsTool, type AgentToolOptions, type DefaultAgentToolInput } from './agent-tool.js';
import { chainsFor } from './chains.js';
import { closingEvents } from './closing.js';
import { AgentError, AgentUsageError } from './errors.js';
import { validateAgentOptions } from './validate-options.js';
import { ReplyRun, type LoopHost, type ResumeRequest } from './loop.js';
import { ReplyQueue } from './mutex.js';
import { ReplyContext } from './reply-context.js';
import { Relay } from './relay.js';

/**
 * What `reply()` and `call()` accept. Resume events need only `type` and `results` (the agent
 * fills the other fields; a `replyId`, if given, must match the suspended reply).
 */
export type ReplyInput =
  | string
  | Msg
  | readonly Msg[]
  | ResumeInput<UserConfirmResultEvent>
  | ResumeInput<ExternalExecutionResultEvent>;

/** A resume event with only the fields a caller must give. */
export type ResumeInput<E extends UserConfirmResultEvent | ExternalExecutionResultEvent> = Pick<E, 'type' | 'results'> &
  Partial<Omit<E, 'type' | 'results'>>;

/** Options of {@link Agent}. */
export interface AgentOptions {
  /** Name of the agent; the `source` of its events. Default `'assistant'`. */
  readonly name?: string;
  /** System prompt (transformed by `onSystemPrompt` middlewares once per reasoning step). */
  readonly sysPrompt?: string;
  readonly model: ChatModel;
  readonly tools?: readonly Tool[];
  /** First = outermost on every hook. */
  readonly middlewares?: readonly Middleware[];
  /** Reasoning steps that may end in tool calls before one final call without tools. Default 20. */
  readonly maxIters?: number;
  /**
   * Tool choice sent to the model. `'auto'` and `'none'` apply to every reasoning step; a forced
   * choice (`'required'` or a tool name) applies to the first step of each reply only, unless
   * `resetToolChoice` is false. Default `'auto'`.
   */
  readonly toolChoice?: ToolChoice;
  /** Use `'auto'` after the first reasoning step of a reply when `toolChoice` is forced. Default true. */
  readonly resetToolChoice?: boolean;
  /** Sampling options sent with every model call. */
  readonly modelOptions?: ModelOptions;
  /** Concurrency-safe calls running at once. Default 8. */
  readonly maxConcurrentTools?: number;
  /** Session id exposed as `ctx.sessionId`, saved with the state, and the key in `store`. */
  readonly sessionId?: string;
  /** A snapshot from `saveState()`, validated here (throws `AgentStateError`). */
  readonly state?: unknown;
  /** Initial permission mode and rules (a restored state's settings win). */
  readonly permissions?: Partial<PermissionState>;
  /**
   * What a plain message does while a reply waits for confirmation or external results:
   * `'reject-pending'` (default) answers the pending calls as rejected and starts a new reply;
   * `'refuse'` refuses the message with an {@link AgentUsageError}.
   */
  readonly whilePending?: 'reject-pending' | 'refuse';
  /**
   * Where the state lives between replies: loaded when a reply starts, saved on every
   * suspension and every end (errors and interruptions included). Requires `sessionId`.
   */
  readonly store?: SessionStore;
  /** Receives errors that have no stream to travel on (a save after cancellation). Default: console.error. */
  readonly onBackgroundError?: (error: unknown) => void;
}

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
  readonly name: string;
  readonly sessionId: string;
  readonly model: ChatModel;
  readonly middlewares: readonly Middleware[];
  readonly tools: readonly Tool[];
  /** Permission mode and rules; change them at runtime, they persist with the state. */
  readonly permissions: Permissions;
  private readonly host: LoopHost;
  private readonly queue = new ReplyQueue();
  private readonly agentChain;
  private readonly promptLayers: readonly Middleware[];
  private readonly sysPrompt: string;
  private readonly toolMap: ReadonlyMap<string, Tool>;
  private readonly whilePending: 'reject-pending' | 'refuse';
  private readonly store: SessionStore | undefined;
  private readonly onBackgroundError: (error: unknown) => void;
  private contextMessages: Msg[] = [];
  private summary: string | undefined;
  private middlewareState: Record<string, unknown> = {};
  private pendingReply: PendingReply | undefined;
  private storeVersion = 0;
  private lastSave: Promise<unknown> = Promise.resolve();
  private current: { run: ReplyRun; controller: AbortController } | undefined;

  constructor(options: AgentOptions) {
    validateAgentOptions(options);
    this.name = options.name ?? 'assistant';
    this.model = options.model;
    this.middlewares = options.middlewares ?? [];
    this.sysPrompt = options.sysPrompt ?? '';
    this.whilePending = options.whilePending ?? 'reject-pending';
    this.store = options.store;
    this.onBackgroundError = options.onBackgroundError ?? ((e) => console.error('[rxscope]', e));
    this.permissions = new Permissions(options.permissions);
    if (options.store && !options.sessionId) {
      throw new AgentUsageError('An agent with a session store needs a sessionId (the key its state is stored under).');
    }
    if (options.state !== undefined) {
      this.restore(parseAgentState(options.state));
      this.sessionId = options.sessionId ?? parseAgentState(options.state).sessionId;
    } else {
      this.sessionId = options.sessionId ?? newId('session');
    }
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
    this.host = {
      agent: this,
      model: this.model,
      tools,
      toolList: this.tools,
      reasoningChain: chains.reasoning,
      actingChain: chains.acting,
      modelCallChain: chains.modelCall,
      maxIters,
      toolChoice: options.toolChoice ?? 'auto',
      resetToolChoice: options.resetToolChoice ?? true,
      modelOptions: options.modelOptions ?? {},
      maxConcurrentTools: Math.max(1, options.maxConcurrentTools ?? 8),
      systemPrompt: (ctx) => this.systemPrompt(ctx),
      context: () => this.contextMessages,
      append: (messages) => {
        if (messages.length) this.contextMessages = [...this.contextMessages, ...messages];
      },
      setContext: (messages) => {
        this.contextMessages = [...messages];
      },
      setPending: (pending) => {
        this.pendingReply = pending;
      },
      decide: (tool, input) => decidePermission(tool, input, this.permissions.state),
      alwaysAllow: (toolName) => this.permissions.addRule({ behavior: 'allow', tool: toolName }),
      persist: () => this.persist(),
      reportError: (error) => this.onBackgroundError(error),
    };
  }

  /** The conversation so far (user messages and reply messages). */
  get context(): readonly Msg[] {
    return this.contextMessages;
  }

  /** The suspended reply waiting for `USER_CONFIRM_RESULT` or `EXTERNAL_EXECUTION_RESULT`, if any. */
  get pending(): PendingReply | undefined {
    return this.pendingReply;
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
      this.store ? this.loadFromStore().pipe(switchMap(() => this.startReply(input, options))) : this.startReply(input, options),
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
    return {
      version: STATE_VERSION,
      agentName: this.name,
      sessionId: this.sessionId,
      context: this.contextMessages,
      ...(this.summary !== undefined ? { summary: this.summary } : {}),
      middlewareState: structuredClone(this.middlewareState),
      permissions: this.permissions.state,
      ...(this.pendingReply ? { pending: this.pendingReply } : {}),
      savedAt: Date.now(),
    };
  }

  private restore(snapshot: AgentStateSnapshot): void {
    this.contextMessages = [...snapshot.context];
    this.summary = snapshot.summary;
    this.middlewareState = structuredClone({ ...snapshot.middlewareState });
    this.permissions.replace(snapshot.permissions);
    this.pendingReply = snapshot.pending;
  }

  private loadFromStore(): Observable<void> {
    const store = this.store!;
    return from(
      this.lastSave.then(async () => {
        const stored = await store.load(this.sessionId);
        if (stored && stored.version !== this.storeVersion) {
          this.restore(stored.state);
          this.storeVersion = stored.version;
        }
      }),
    );
  }

  private persist(): Promise<void> | undefined {
    const store = this.store;
    if (!store) return undefined;
    const save = this.lastSave.then(async () => {
      this.storeVersion = await store.save(this.sessionId, this.saveState(), this.storeVersion);
    });
    this.lastSave = save.catch(() => undefined);
    return save;
  }

  private startReply(input: ReplyInput, options: ReplyOptions): Observable<AgentEvent> {
    const output = options.output ? this.structuredOutput(options) : undefined;
    const prepared = this.prepareInput(input);
    const controller = new AbortController();
    const replyId = prepared.resume?.pending.replyId ?? newId('reply');
    const replyValues = structuredClone({ ...prepared.resume?.pending.replyState });
    const ctx = new ReplyContext(this.name, replyId, this.sessionId, controller.signal, this.middlewareState, replyValues);
    const run = new ReplyRun(this.host, ctx, prepared.resume, output);
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
          if (outer) closing.push(...closingEvents(ctx, outer, 'error', `the reply failed: ${toErrorInfo(err).message}`));
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
  private prepareInput(input: ReplyInput): {
    messages: Msg[];
    resume?: ResumeRequest;
    rejected?: (ctx: ReplyContext) => AgentEvent;
  } {
    if (typeof input === 'object' && !Array.isArray(input) && 'type' in input) {
      const resume = input;
      if (resume.type === 'USER_CONFIRM_RESULT' || resume.type === 'EXTERNAL_EXECUTION_RESULT') {
        return { messages: [], resume: this.validateResume(resume) };
      }
    }
    const messages =
      typeof input === 'string' ? [createMsg('user', input)] : Array.isArray(input) ? [...(input as readonly Msg[])] : [input as Msg];
    const pending = this.pendingReply;
    if (!pending) return { messages };
    const waiting = [...pending.confirm, ...pending.external];
    if (this.whilePending === 'refuse') {
      throw new AgentUsageError(
        `Agent "${this.name}" is waiting for ${pending.confirm.length ? 'USER_CONFIRM_RESULT' : 'EXTERNAL_EXECUTION_RESULT'} ` +
          `for tool call(s) ${waiting.map((c) => `${c.id} (${c.name})`).join(', ')} of reply ${pending.replyId}; ` +
          'answer them before sending a new message.',
      );
    }
    // Close the suspended reply: every waiting call answered, the message stored.
    const reducer = createReplyReducer({ initial: pending.message, source: this.name });
    const origin = new ReplyContext(this.name, pending.replyId, this.sessionId, new AbortController().signal, {});
    for (const call of pending.confirm) {
      for (const e of resultEvents(origin, call, 'denied', 'The user sent a new message instead of confirming this call.')) reducer.apply(e);
    }
    for (const call of pending.external) {
      for (const e of resultEvents(origin, call, 'interrupted', 'The user sent a new message before this call was executed.')) {
        reducer.apply(e);
      }
    }
    this.contextMessages = [...this.contextMessages, reducer.message()];
    this.pendingReply = undefined;
    return {
      messages,
      rejected: (ctx) =>
        ctx.event('CUSTOM', {
          name: 'pending_calls_rejected',
          value: { replyId: pending.replyId, toolCallIds: waiting.map((c) => c.id) },
        }),
    };
  }

  private validateResume(
    event: ResumeInput<UserConfirmResultEvent> | ResumeInput<ExternalExecutionResultEvent>,
  ): ResumeRequest {
    const pending = this.pendingReply;
    const refuse = (why: string): never => {
      throw new AgentUsageError(`Cannot resume with ${event.type}: ${why}`);
    };
    if (!pending) return refuse(`agent "${this.name}" has no suspended reply; send a user message instead.`);
    if (event.replyId !== undefined && event.replyId !== pending.replyId) {
      refuse(`it is for reply ${event.replyId}, but the suspended reply is ${pending.replyId}.`);
    }
    const expected = event.type === 'USER_CONFIRM_RESULT' ? pending.confirm : pending.external;
    if (!expected.length) {
      refuse(
        `reply ${pending.replyId} is waiting for ${event.type === 'USER_CONFIRM_RESULT' ? 'EXTERNAL_EXECUTION_RESULT' : 'USER_CONFIRM_RESULT'}.`,
      );
    }
    const results = Array.isArray(event.results) ? (event.results as readonly (ConfirmResult | ExternalResult)[]) : refuse('results must be an array.');
    const ids = new Set(expected.map((c) => c.id));
    const seen = new Set<string>();
    for (const r of results) {
      if (!ids.has(r.toolCallId)) refuse(`unknown tool call id "${r.toolCallId}"; pending: ${[...ids].join(', ')}.`);
      if (seen.has(r.toolCallId)) refuse(`tool call ${r.toolCallId} is answered twice.`);
      seen.add(r.toolCallId);
    }
    const missing = [...ids].filter((id) => !seen.has(id));
    if (missing.length) refuse(`every pending call must be answered; missing: ${missing.join(', ')}.`);
    if (event.type === 'USER_CONFIRM_RESULT') {
      const normalized = (results as readonly ConfirmResult[]).map((r) => {
        if (typeof r.confirmed !== 'boolean') refuse(`result for ${r.toolCallId} needs "confirmed": true or false.`);
        if (!r.confirmed || r.input === undefined) return r;
        const call = expected.find((c) => c.id === r.toolCallId)!;
        const tool = this.toolMap.get(call.name);
        if (!tool) return refuse(`tool "${call.name}" is no longer registered.`);
        const checked = validateToolInput(tool, r.input);
        if (!checked.ok) refuse(`the edited input of ${r.toolCallId} is invalid. ${checked.message}`);
        return { ...r, input: checked.ok ? checked.input : r.input };
      });
      return { pending, event: { ...(event as UserConfirmResultEvent), results: normalized } };
    }
    for (const r of results as readonly ExternalResult[]) {
      if (typeof r.output !== 'string' && !Array.isArray(r.output)) refuse(`result for ${r.toolCallId} needs an "output" (string or content blocks).`);
    }
    return { pending, event: event as ExternalExecutionResultEvent };
  }

  /**
   * The system prompt through the `onSystemPrompt` layers, in order: a string while every layer
   * answers with a string (no stream to subscribe to on each reasoning step), a stream from the
   * first layer that answers with an ObservableInput on.
   */
  private systemPrompt(ctx: ReplyContext): string | Observable<string> {
    const layers = this.promptLayers;
    let prompt = this.sysPrompt;
    for (let i = 0; i < layers.length; i++) {
      const out = layers[i]!.onSystemPrompt!(this, ctx, prompt);
      if (typeof out === 'string') {
        prompt = out;
        continue;
      }
      return layers.slice(i + 1).reduce<Observable<string>>(
        (prompt$, mw) =>
          prompt$.pipe(
            concatMap((p) => {
              const next = mw.onSystemPrompt!(this, ctx, p);
              if (typeof next === 'string') return of(next);
              return from(next).pipe(take(1), defaultIfEmpty(p));
            }),
          ),
        from(out).pipe(take(1), defaultIfEmpty(prompt)),
      );
    }
    return prompt;
  }
}
