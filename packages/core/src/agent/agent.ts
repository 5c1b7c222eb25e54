import {
  catchError,
  concatMap,
  defaultIfEmpty,
  defer,
  finalize,
  from,
  lastValueFrom,
  map,
  type Observable,
  of,
  reduce,
  take,
  tap,
} from 'rxjs';
import type { AgentEvent, ExternalExecutionResultEvent, ReplyEndEvent, UserConfirmResultEvent } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import { createMsg } from '../message/msg.js';
import { createReplyReducer } from '../message/reducer.js';
import { chainFor } from '../middleware/chain.js';
import type { Middleware } from '../middleware/middleware.js';
import type { ChatModel, ModelOptions, ToolChoice } from '../model/chat-model.js';
import { toErrorInfo } from '../model/model-error.js';
import { parseAgentState, STATE_VERSION, type AgentStateSnapshot } from '../state/snapshot.js';
import type { Tool } from '../tool/tool.js';
import { newId } from '../util/id.js';
import { closingEvents } from './closing.js';
import { AgentError, AgentUsageError } from './errors.js';
import { ReplyRun, type LoopHost } from './loop.js';
import { ReplyQueue } from './mutex.js';
import { ReplyContext } from './reply-context.js';

/** What `reply()` and `call()` accept. */
export type ReplyInput = string | Msg | readonly Msg[] | UserConfirmResultEvent | ExternalExecutionResultEvent;

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
  /** Tool choice of the first reasoning step of each reply. Default `'auto'`. */
  readonly toolChoice?: ToolChoice;
  /** After a forced choice (`required` or a name) has been honoured once, use `auto`. Default true. */
  readonly resetToolChoice?: boolean;
  /** Sampling options sent with every model call. */
  readonly modelOptions?: ModelOptions;
  /** Concurrency-safe calls running at once. Default 8. */
  readonly maxConcurrentTools?: number;
  /** Session id exposed as `ctx.sessionId` and saved with the state. Default: a new id. */
  readonly sessionId?: string;
  /** A snapshot from `saveState()`, validated here (throws `AgentStateError`). */
  readonly state?: unknown;
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
  private readonly host: LoopHost;
  private readonly queue = new ReplyQueue();
  private readonly agentChain;
  private readonly promptLayers: readonly Middleware[];
  private readonly sysPrompt: string;
  private contextMessages: Msg[] = [];
  private summary: string | undefined;
  private middlewareState: Record<string, unknown> = {};
  private current: { run: ReplyRun; controller: AbortController } | undefined;

  constructor(options: AgentOptions) {
    this.name = options.name ?? 'assistant';
    this.model = options.model;
    this.middlewares = options.middlewares ?? [];
    this.sysPrompt = options.sysPrompt ?? '';
    if (options.state !== undefined) {
      const snapshot = parseAgentState(options.state);
      this.contextMessages = [...snapshot.context];
      this.summary = snapshot.summary;
      this.middlewareState = structuredClone({ ...snapshot.middlewareState });
      this.sessionId = options.sessionId ?? snapshot.sessionId;
    } else {
      this.sessionId = options.sessionId ?? newId('session');
    }
    const tools = new Map<string, Tool>();
    const all = [...(options.tools ?? []), ...this.middlewares.flatMap((m) => m.tools?.() ?? [])];
    for (const tool of all) {
      if (tools.has(tool.name)) throw new AgentUsageError(`Two tools are named "${tool.name}"; tool names must be unique.`);
      tools.set(tool.name, tool);
    }
    this.tools = [...tools.values()];
    const maxIters = options.maxIters ?? 20;
    if (!Number.isInteger(maxIters) || maxIters < 0) throw new AgentUsageError(`maxIters must be a non-negative integer, got ${maxIters}.`);
    this.agentChain = chainFor(this.middlewares, 'onAgent');
    this.promptLayers = this.middlewares.filter((m) => m.onSystemPrompt !== undefined);
    this.host = {
      agent: this,
      model: this.model,
      tools,
      toolList: this.tools,
      reasoningChain: chainFor(this.middlewares, 'onReasoning'),
      actingChain: chainFor(this.middlewares, 'onActing'),
      modelCallChain: chainFor(this.middlewares, 'onModelCall'),
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
    };
  }

  /** The conversation so far (user messages and reply messages). */
  get context(): readonly Msg[] {
    return this.contextMessages;
  }

  /** True while a reply runs. */
  get busy(): boolean {
    return this.queue.running;
  }

  /**
   * Runs one reply. Cold: nothing happens until subscribe; each subscription is one reply;
   * unsubscribing cancels it (model request and tools included). Replies queue one at a time.
   *
   * @example
   * ```ts
   * const sub = agent.reply('Summarise this file').subscribe(render);
   * cancelButton.onclick = () => sub.unsubscribe();
   * ```
   */
  reply(input: ReplyInput): Observable<AgentEvent> {
    return this.queue.run(defer(() => this.startReply(input)));
  }

  /**
   * Runs one reply and resolves with its message (`metadata.finishReason`, `metadata.usage`),
   * or rejects with an {@link AgentError} when it ends with an error.
   *
   * @example
   * ```ts
   * const msg = await agent.call('What is 2 + 3?');
   * console.log(textOfMsg(msg));
   * ```
   */
  call(input: ReplyInput): Promise<Msg> {
    // reduce() always emits, so the stream is never empty.
    // eslint-disable-next-line rxjs-x/no-ignored-default-value
    return lastValueFrom(
      defer(() => {
        const reducer = createReplyReducer({ source: this.name });
        let end: ReplyEndEvent | undefined;
        return this.reply(input).pipe(
          reduce((count, e) => {
            reducer.apply(e);
            if (e.type === 'REPLY_END' && e.source === this.name) end = e;
            return count + 1;
          }, 0),
          map(() => {
            if (!end) throw new AgentError({ name: 'Error', message: 'the reply ended without REPLY_END' }, '');
            if (end.finishReason === 'error') throw new AgentError(end.error ?? { name: 'Error', message: 'unknown error' }, end.replyId);
            const msg = reducer.message();
            return { ...msg, metadata: { ...msg.metadata, replyId: end.replyId, finishReason: end.finishReason, usage: end.usage } };
          }),
        );
      }),
    );
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
   * A JSON-serialisable, versioned snapshot of the conversation and middleware state.
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
      savedAt: Date.now(),
    };
  }

  private startReply(input: ReplyInput): Observable<AgentEvent> {
    const messages = this.normalizeInput(input);
    const controller = new AbortController();
    const ctx = new ReplyContext(this.name, newId('reply'), this.sessionId, controller.signal, this.middlewareState);
    const run = new ReplyRun(this.host, ctx);
    this.current = { run, controller };
    let ended = false;
    const outer = this.middlewares.some((m) => m.onAgent !== undefined) ? createReplyReducer({ source: this.name }) : undefined;
    let started = false;
    return this.agentChain(this, ctx, { messages }, (i) => run.events(i)).pipe(
      tap((e) => {
        if (e.source !== this.name) return;
        outer?.apply(e);
        if (e.type === 'REPLY_START') started = true;
        else if (e.type === 'REPLY_END') ended = true;
      }),
      catchError((err: unknown) => {
        // Only a failure of an onAgent layer itself reaches here; the loop ends its own failures.
        if (ended) return from([]);
        ended = true;
        const closing: AgentEvent[] = started ? [] : [ctx.event('REPLY_START', { sessionId: this.sessionId })];
        if (outer) closing.push(...closingEvents(ctx, outer, 'error', `the reply failed: ${toErrorInfo(err).message}`));
        closing.push(ctx.event('REPLY_END', { finishReason: 'error', error: toErrorInfo(err) }));
        return from(closing);
      }),
      finalize(() => {
        if (!ended) controller.abort(new Error('reply cancelled'));
        if (this.current?.run === run) this.current = undefined;
      }),
    );
  }

  private normalizeInput(input: ReplyInput): Msg[] {
    if (typeof input === 'string') return [createMsg('user', input)];
    if (Array.isArray(input)) return [...(input as readonly Msg[])];
    const value = input as Msg | UserConfirmResultEvent | ExternalExecutionResultEvent;
    if ('type' in value && (value.type === 'USER_CONFIRM_RESULT' || value.type === 'EXTERNAL_EXECUTION_RESULT')) {
      throw new AgentUsageError(
        `Agent "${this.name}" has no suspended reply waiting for ${value.type}; send a user message instead.`,
      );
    }
    return [value];
  }

  private systemPrompt(ctx: ReplyContext): Observable<string> {
    if (!this.promptLayers.length) return of(this.sysPrompt);
    return this.promptLayers.reduce<Observable<string>>(
      (prompt$, mw) =>
        prompt$.pipe(
          concatMap((prompt) => {
            const out = mw.onSystemPrompt!(this, ctx, prompt);
            if (typeof out === 'string') return of(out);
            return from(out).pipe(take(1), defaultIfEmpty(prompt));
          }),
        ),
      of(this.sysPrompt),
    );
  }
}

