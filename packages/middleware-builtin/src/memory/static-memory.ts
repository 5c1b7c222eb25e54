import { defer, type Observable, tap } from 'rxjs';
import {
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  type ChatModel,
  ContextToken,
  modelText,
  type Middleware,
  type Msg,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  textOfMsg,
  checkOptionKeys,
  optionKeys,
  OptionsError,
} from '@rxscope/core';
import { checkMemory, type Memory, type MemoryBackend, type MemoryHeader } from './memory-backend.js';
import { checkMemoryBackend } from './check-memory-backend.js';
import { checkMemoryScope, memoryBackendFor, type MemoryScope } from './memory-scope.js';
import { withRecalledMemories } from './recalled-memories.js';

/**
 * One finished reply, as the write-back sees it.
 *
 * @example
 * ```ts
 * const exchange: MemoryExchange = { agentName: 'assistant', sessionId: 's-1', replyId: 'r-1', input: 'I prefer metric units.', answer: 'Noted.' };
 * ```
 */
export interface MemoryExchange {
  readonly agentName: string;
  readonly sessionId: string;
  readonly replyId: string;
  /** The user the reply acted for (`ctx.userId`), when it had one. */
  readonly userId?: string;
  /** The user's input of the reply. */
  readonly input: string;
  /** The agent's own text of the reply. */
  readonly answer: string;
}

/**
 * Decides what to remember from a finished reply: the memories to write (a name already there
 * replaces that memory).
 *
 * @example
 * ```ts
 * const rememberPreferences: MemoryExtractor = async ({ input }) =>
 *   /prefer/i.test(input) ? [{ name: 'user-preferences', description: 'What the user prefers', type: 'user', content: input }] : [];
 * ```
 */
export type MemoryExtractor = (
  exchange: MemoryExchange,
  existing: readonly MemoryHeader[],
  signal: AbortSignal,
) => Promise<readonly Memory[]>;

/**
 * Options of {@link StaticMemoryMiddleware}.
 *
 * @example
 * ```ts
 * const options: StaticMemoryOptions = { backend: new KnowledgeMemoryBackend({ embeddings }), topK: 3 };
 * ```
 */
export interface StaticMemoryOptions {
  /** Where memories live (`FileMemoryBackend`, `KnowledgeMemoryBackend`, your own). Required. */
  readonly backend: MemoryBackend;
  /** Memories injected per reply (the backend's best matches for the user's input). Default 3. */
  readonly topK?: number;
  /**
   * What to remember after each completed reply: `true` (default) asks a model (`writer`, else the
   * agent's) for memories as JSON; a function decides itself; `false` only injects.
   */
  readonly writeBack?: boolean | MemoryExtractor;
  /** The model of the default write-back. Default: the agent's model. */
  readonly writer?: ChatModel;
  /** Failures of the detached write-back (no reply is left to report them). Default `console.warn`. */
  readonly onError?: (error: Error) => void;
  /** Called after a write-back stored memories (their names). */
  readonly onWritten?: (names: readonly string[], exchange: MemoryExchange) => void;
  /** State key. Default `'StaticMemoryMiddleware'`. */
  readonly key?: string;
  /**
   * Whose memories a reply recalls and writes back: `'user'` (default) keeps each user's
   * (`ctx.userId`) in the backend's `scoped(userId)` view; `'shared'`: one set for everyone.
   */
  readonly scope?: MemoryScope;
}

const RECALL = new ContextToken<Promise<readonly Memory[]> | undefined>(
  'StaticMemoryMiddleware.recall',
  () => undefined,
);
const TYPES = ['user', 'project', 'feedback', 'reference'];

// Every option, typed against StaticMemoryOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<StaticMemoryOptions>({
  backend: true,
  scope: true,
  topK: true,
  writeBack: true,
  writer: true,
  onError: true,
  onWritten: true,
  key: true,
});

/**
 * Long-term memory without the agent's involvement (the static mode): when a reply starts, the
 * backend's best matches for the user's input are searched and added as a hint to the first
 * reasoning step (`HINT_BLOCK` from `'memory'`, removed after the step; `CUSTOM memory.recalled
 * {names}`); after a reply completes, what is worth keeping is written back, detached from the
 * reply (its stream has ended; `settled()` waits for it). Offers no tools; combine with
 * `AgenticMemoryMiddleware` (another `key`) for both.
 *
 * @example
 * ```ts
 * const memory = new StaticMemoryMiddleware({ backend: new KnowledgeMemoryBackend({ embeddings }) });
 * const agent = new Agent({ model, middlewares: [memory] });
 * await agent.call('I prefer metric units.');
 * await memory.settled(); // the write-back of that reply is stored
 * ```
 */
export class StaticMemoryMiddleware implements Middleware {
  readonly key: string;
  private readonly backend: MemoryBackend;
  private readonly topK: number;
  private readonly writeBackOn: boolean;
  /** A custom extractor; undefined: ask the writer model. */
  private readonly extract: MemoryExtractor | undefined;
  private readonly writer: ChatModel | undefined;
  private readonly onError: (error: Error) => void;
  private readonly onWritten: ((names: readonly string[], exchange: MemoryExchange) => void) | undefined;
  /** Write-backs still running (bookkeeping for `settled()`, never read by a reply). */
  private readonly writing = new Set<Promise<void>>();
  private readonly scope: MemoryScope;

  constructor(options: StaticMemoryOptions) {
    checkOptionKeys('StaticMemoryMiddleware', options, OPTION_KEYS);
    const owner = 'StaticMemoryMiddleware';
    checkMemoryBackend(owner, options?.backend, 'new KnowledgeMemoryBackend({ embeddings })');
    const topK = options.topK ?? 3;
    if (!Number.isInteger(topK) || topK < 0)
      throw new OptionsError(
        'invalid_option',
        'StaticMemoryMiddleware.topK',
        `${owner}: topK must be an integer >= 0, got ${topK}.`,
      );
    const writeBack = options.writeBack ?? true;
    if (typeof writeBack !== 'boolean' && typeof writeBack !== 'function')
      throw new OptionsError(
        'invalid_option',
        'StaticMemoryMiddleware.writeBack',
        `${owner}: writeBack must be true, false or a function.`,
      );
    this.key = options.key ?? owner;
    this.scope = checkMemoryScope(owner, options.scope);
    this.backend = options.backend;
    this.topK = topK;
    this.writer = options.writer;
    this.extract = typeof writeBack === 'function' ? writeBack : undefined;
    this.writeBackOn = writeBack !== false;
    this.onError = options.onError ?? ((e) => console.warn('[rxscope memory]', e.message));
    this.onWritten = options.onWritten;
  }

  /** Resolves once every write-back started so far has finished (stored or failed). */
  async settled(): Promise<void> {
    while (this.writing.size) await Promise.allSettled([...this.writing]);
  }

  onAgent(agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() => {
      // A resumed reply (after a confirmation or an external execution) has no new messages: its
      // question is the user's text that came before the reply's own message.
      const question = userText(
        input.messages.length ? input.messages : askedBefore(ctx.conversation.messages, ctx.replyId),
      );
      const backend = memoryBackendFor('StaticMemoryMiddleware', this.backend, this.scope, ctx.userId);
      if (question && this.topK > 0) {
        // Started now, beside the reply's start; awaited at the first reasoning step.
        const recall = backend.search(question, this.topK);
        recall.catch(() => undefined); // reported at the first step
        ctx.set(RECALL, recall);
      }
      if (!question || !this.writeBackOn) return next(input);
      // The text the reply wrote before it paused is in its message; the rest comes as events.
      const own = input.resume ? ctx.conversation.messages.find((m) => m.id === ctx.replyId) : undefined;
      let answer = own ? textOfMsg(own) : '';
      return next(input).pipe(
        tap((event) => {
          if (event.type === 'TEXT_BLOCK_DELTA' && event.source === agent.name) answer += event.delta;
          if (event.type === 'REPLY_END' && event.finishReason === 'completed') {
            this.writeBack(agent, backend, {
              agentName: agent.name,
              sessionId: ctx.sessionId,
              replyId: ctx.replyId,
              ...(ctx.userId !== undefined ? { userId: ctx.userId } : {}),
              input: question,
              answer,
            });
          }
        }),
      );
    });
  }

  onReasoning(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    const recall = ctx.iteration === 1 ? ctx.get(RECALL) : undefined;
    if (!recall) return next(input);
    return withRecalledMemories(
      this.key,
      ctx,
      recall.then((memories) => ({ memories, dropped: [] })),
      input,
      next,
    );
  }

  /** Detached from the reply: its stream has ended, so failures go to `onError`. */
  private writeBack(agent: AgentHandle, backend: MemoryBackend, exchange: MemoryExchange): void {
    const run = (async () => {
      const existing = await backend.list();
      const extract =
        this.extract ??
        ((x: MemoryExchange, e: readonly MemoryHeader[], s: AbortSignal) =>
          this.askWriter(this.writer ?? agent.model, x, e, s));
      const memories = await extract(exchange, existing, AbortSignal.timeout(120_000));
      const written: string[] = [];
      for (const memory of memories) {
        await backend.write(checkMemory(memory));
        written.push(memory.name);
      }
      if (written.length) this.onWritten?.(written, exchange);
    })().catch((e: unknown) =>
      this.onError(
        new Error(
          `The memories of reply ${exchange.replyId} could not be written back: ${e instanceof Error ? e.message : String(e)}`,
          { cause: e },
        ),
      ),
    );
    this.writing.add(run);
    void run.finally(() => this.writing.delete(run));
  }

  /** The default extractor: a model lists what is worth remembering, as JSON; invalid entries are dropped. */
  private async askWriter(
    model: ChatModel,
    exchange: MemoryExchange,
    existing: readonly MemoryHeader[],
    signal: AbortSignal,
  ): Promise<Memory[]> {
    const system =
      'You keep long-term memories about the user and their projects. From the exchange below, list what is worth ' +
      'remembering in later conversations (preferences, facts, feedback), as a JSON array of objects ' +
      '{"name": kebab-case, "description": one line, "type": "user" | "project" | "feedback" | "reference", "content": Markdown}. ' +
      'Reuse the name of an existing memory to update it. Answer [] when nothing is worth keeping, and nothing but the JSON.' +
      `\n\nExisting memories:\n${existing.map((h) => `- ${h.name} (${h.type}): ${h.description}`).join('\n') || '(none)'}`;
    const user = `User: ${exchange.input}\n\nAssistant: ${exchange.answer}`;
    const answer = await modelText(model, { system, user: user, signal });
    return parseMemories(answer);
  }
}

function userText(messages: readonly Msg[]): string {
  return messages
    .filter((m) => m.role === 'user')
    .map(textOfMsg)
    .join('\n')
    .trim();
}

/** The user messages right before the reply's own message (the input of a suspended reply). */
function askedBefore(messages: readonly Msg[], replyId: string): Msg[] {
  let at = messages.findIndex((m) => m.id === replyId);
  if (at < 0) at = messages.length;
  const asked: Msg[] = [];
  for (let i = at - 1; i >= 0 && messages[i]!.role === 'user'; i--) asked.unshift(messages[i]!);
  return asked;
}

/** The memories in a writer's answer (a JSON array); entries that are not valid memories are left out. */
function parseMemories(answer: string): Memory[] {
  const json = /\[[\s\S]*\]/.exec(answer)?.[0];
  if (!json) return [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  return value.flatMap((v: unknown) => {
    const m = v as Partial<Memory> | null;
    if (typeof m !== 'object' || m === null || !TYPES.includes(m.type ?? '')) return [];
    try {
      return [
        checkMemory({
          name: String(m.name),
          description: String(m.description),
          type: String(m.type),
          content: String(m.content ?? ''),
        }),
      ];
    } catch {
      return [];
    }
  });
}
