/**
 * `RAGMiddleware`: retrieval-augmented generation over one or more knowledge bases.
 *
 * - `mode: 'agentic'` (default) gives the agent the read-only tool `search_knowledge {query,
 *   knowledge_bases?}`: the model decides when to search and where (`knowledge_bases` is an enum
 *   of the mounted names). The result lists the chunks, numbered, each with its source and line
 *   range so the answer can cite them.
 * - `mode: 'static'` retrieves at the first reasoning step of each reply, from the user's input
 *   of that reply, and adds the chunks as a hint to that step (`HINT_BLOCK`, from `'rag'`),
 *   removed from the conversation after the step unless `persistHint`.
 * - Both modes report each retrieval the same way: a `CUSTOM {name: 'rag.retrieved', value:
 *   {query, hits, failures}}` event lists what was found (for a UI's citations; in agentic mode
 *   it follows the search's `TOOL_RESULT_END` and carries its `toolCallId`); when every base
 *   fails, `rag.error {query, message}` (static: the step runs without context; agentic: it
 *   precedes the call's error result).
 *
 * Several bases are searched in parallel and merged by reciprocal rank fusion (ranks, not raw
 * scores: scores of different bases and embedding models are not comparable), cut at `topK`;
 * `scoreThreshold` is passed to every base (its meaning is the base's, see the base). A base
 * whose search fails is named in the result and the others still answer.
 *
 * The instance keeps no per-reply data: one instance can serve many agents and concurrent
 * replies.
 *
 * @example
 * ```ts
 * const handbook = new InMemoryKnowledgeBase({ embeddings: new OpenAIEmbeddings({ model: 'text-embedding-3-small' }) });
 * await handbook.add(await loadMarkdown('./handbook'));
 * const agent = new Agent({
 *   name: 'support', model,
 *   sysPrompt: 'Answer from the handbook and cite sources like [handbook/refunds.md:3-9].',
 *   middlewares: [new RAGMiddleware({ knowledgeBases: { handbook }, topK: 4 })],
 * });
 * ```
 *
 * @module
 */
import { catchError, concat, concatMap, defer, EMPTY, map, type Observable, of, tap, throwError } from 'rxjs';
import { z } from 'zod';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  defineTool,
  type Middleware,
  type Msg,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  textOfMsg,
  type Tool,
  checkOptionKeys,
  optionKeys,
  OptionsError,
} from '@rxscope/core';
import { citationOf } from '../knowledge/search-knowledge-bases.js';
import { checkTopK, type KnowledgeBase } from '../knowledge/knowledge-base.js';
import {
  formatKnowledge,
  type KnowledgeSearchResult,
  searchKnowledgeBases,
} from '../knowledge/search-knowledge-bases.js';

/** Options of {@link RAGMiddleware}. */
export interface RAGOptions {
  /** The bases to search, by the name the model sees (letters, digits, `_`, `-`, `.`). At least one. */
  readonly knowledgeBases: Readonly<Record<string, KnowledgeBase>>;
  /** `'agentic'`: the model searches with a tool. `'static'`: retrieval from the user's input before the first step. Default `'agentic'`. */
  readonly mode?: 'agentic' | 'static';
  /** Static mode: keep the hint in the conversation after the step. Default false. */
  readonly persistHint?: boolean;
  /** Static mode: the hint, with exactly one `{context}` where the chunks go. */
  readonly hintTemplate?: string;
  /** Static mode: the search query from the conversation before the reply. Default: the text of the trailing user messages. */
  readonly query?: (messages: readonly Msg[]) => string;
  /** Chunks per search after fusion. Default 5. */
  readonly topK?: number;
  /** Passed to every base's search (see the base for its scale). Default: none. */
  readonly scoreThreshold?: number;
  /** What each base holds, shown to the model in the tool description. */
  readonly descriptions?: Readonly<Record<string, string>>;
  /** Name of the search tool. Default `'search_knowledge'`. */
  readonly toolName?: string;
  /** Damping constant of the rank fusion. Default 60. */
  readonly rrfK?: number;
  /** State key. Default `'RAGMiddleware'`. */
  readonly key?: string;
}

const BASE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const DEFAULT_HINT =
  "Passages from the knowledge base that may help with the user's last message. Use them if they are relevant " +
  'and cite the sources you use, e.g. [guide/setup.md:12-20].\n\n{context}';

/** The text of the user messages at the end of `messages` (the input of the reply). */
function trailingUserText(messages: readonly Msg[]): string {
  const texts: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'user'; i--) texts.unshift(textOfMsg(messages[i]!));
  return texts.join('\n');
}

// Every option, typed against RAGOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<RAGOptions>({
  knowledgeBases: true,
  mode: true,
  persistHint: true,
  hintTemplate: true,
  query: true,
  topK: true,
  scoreThreshold: true,
  descriptions: true,
  toolName: true,
  rrfK: true,
  key: true,
});

/**
 * Retrieval-augmented generation over mounted knowledge bases. See the module documentation.
 */
export class RAGMiddleware implements Middleware {
  readonly key: string;
  private readonly bases: Readonly<Record<string, KnowledgeBase>>;
  private readonly names: readonly [string, ...string[]];
  private readonly topK: number;
  private readonly scoreThreshold: number | undefined;
  private readonly rrfK: number | undefined;
  private readonly searchTool: Tool | undefined;
  private readonly mode: 'agentic' | 'static';
  private readonly persistHint: boolean;
  private readonly hintTemplate: string;
  private readonly query: (messages: readonly Msg[]) => string;

  constructor(options: RAGOptions) {
    checkOptionKeys('RAGMiddleware', options, OPTION_KEYS, {
      foreign: { retriever: 'knowledgeBases', retrievers: 'knowledgeBases', k: 'topK' },
    });
    const owner = 'RAGMiddleware';
    const bases = options?.knowledgeBases;
    const names = bases && typeof bases === 'object' ? Object.keys(bases) : [];
    if (!names.length)
      throw new OptionsError(
        'invalid_option',
        'RAGMiddleware.knowledgeBases',
        `${owner}: knowledgeBases must name at least one knowledge base, e.g. { handbook: kb }.`,
      );
    for (const name of names) {
      if (!BASE_NAME.test(name))
        throw new OptionsError(
          'invalid_option',
          'RAGMiddleware.knowledgeBases',
          `${owner}: knowledge base name "${name}" must be 1-64 letters, digits, "_", "-" or ".".`,
        );
      const kb = bases[name] as Partial<KnowledgeBase> | undefined;
      if (typeof kb?.search !== 'function')
        throw new OptionsError(
          'invalid_option',
          'RAGMiddleware.knowledgeBases',
          `${owner}: knowledgeBases.${name} is not a knowledge base (it has no search method).`,
        );
    }
    if (options.mode !== undefined && options.mode !== 'agentic' && options.mode !== 'static') {
      throw new OptionsError(
        'invalid_option',
        'RAGMiddleware.mode',
        `${owner}: mode must be 'agentic' or 'static', got ${JSON.stringify(options.mode)}.`,
      );
    }
    const template = options.hintTemplate ?? DEFAULT_HINT;
    const slots = template.split('{context}').length - 1;
    if (slots !== 1)
      throw new OptionsError(
        'invalid_option',
        'RAGMiddleware.hintTemplate',
        `${owner}: hintTemplate must contain {context} exactly once (found ${slots}).`,
      );
    for (const name of Object.keys(options.descriptions ?? {})) {
      if (!names.includes(name))
        throw new OptionsError(
          'invalid_option',
          'RAGMiddleware.descriptions',
          `${owner}: descriptions.${name} names no mounted knowledge base (mounted: ${names.join(', ')}).`,
        );
    }
    this.key = options.key ?? owner;
    this.bases = bases;
    this.names = names as [string, ...string[]];
    this.topK = checkTopK(owner, options.topK);
    this.scoreThreshold = options.scoreThreshold;
    this.rrfK = options.rrfK;
    this.mode = options.mode ?? 'agentic';
    this.persistHint = options.persistHint ?? false;
    this.hintTemplate = template;
    this.query = options.query ?? trailingUserText;
    this.searchTool =
      this.mode === 'agentic'
        ? this.createTool(options.toolName ?? 'search_knowledge', options.descriptions ?? {})
        : undefined;
    this.toolList = this.searchTool ? [this.searchTool] : [];
  }

  private readonly toolList: readonly Tool[];

  tools(): readonly Tool[] {
    return this.toolList;
  }

  /**
   * Agentic mode: runs the search call with a copy of the tool that hands its result back to this
   * layer (per call, nothing kept on the instance), then reports it as `rag.retrieved` (or
   * `rag.error`) after the call's `TOOL_RESULT_END`.
   */
  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    if (!this.searchTool || input.tool !== this.searchTool) return next(input);
    return defer(() => {
      let report: AgentEvent | undefined;
      const toolCallId = input.toolCall.id;
      const tool: Tool<SearchArgs> = {
        ...this.searchTool!,
        execute: (args, toolCtx) =>
          this.searchForTool(args, toolCtx.signal, ctx.userId).pipe(
            tap({
              next: ({ result }) => {
                report = ctx.event('CUSTOM', {
                  name: 'rag.retrieved',
                  value: { ...retrievedValue(result), toolCallId },
                });
              },
              error: (err: unknown) => {
                const message = err instanceof Error ? err.message : String(err);
                report = ctx.event('CUSTOM', { name: 'rag.error', value: { query: args.query, message, toolCallId } });
              },
            }),
            map(({ text }) => text),
          ),
      };
      return next({ ...input, tool }).pipe(
        concatMap((event) => {
          if (event.type !== 'TOOL_RESULT_END' || event.toolCallId !== toolCallId || !report) return of(event);
          const after = report;
          report = undefined;
          return of(event, after);
        }),
        // A failed search fails the call (the loop answers it with an error result): say why first.
        catchError((error: unknown) =>
          concat(
            report ? of(report) : EMPTY,
            throwError(() => error as Error),
          ),
        ),
      );
    });
  }

  onReasoning(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    if (this.mode !== 'static' || ctx.iteration !== 1) return next(input);
    return defer(() => {
      const query = this.query(input.messages).trim();
      if (!query) return next(input);
      return searchKnowledgeBases(this.bases, this.names, query, {
        topK: this.topK,
        signal: ctx.signal,
        // The user's own documents besides the shared ones; never another user's.
        ...(ctx.userId !== undefined ? { scope: ctx.userId } : {}),
        ...(this.scoreThreshold !== undefined ? { scoreThreshold: this.scoreThreshold } : {}),
        ...(this.rrfK !== undefined ? { rrfK: this.rrfK } : {}),
      }).pipe(
        map((result): AgentEvent => {
          if (result.hits.length) {
            // The id makes a re-entered step (an outer retry) add it only once.
            ctx.conversation.addHint(
              this.hintTemplate.replace('{context}', () => formatKnowledge(result)),
              {
                id: `${this.key}:${ctx.replyId}`,
                lifetime: this.persistHint ? 'persistent' : 'step',
                source: 'rag',
              },
            );
          }
          return ctx.event('CUSTOM', { name: 'rag.retrieved', value: retrievedValue(result) });
        }),
        catchError((err: unknown) =>
          of(
            ctx.event('CUSTOM', {
              name: 'rag.error',
              value: { query, message: err instanceof Error ? err.message : String(err) },
            }),
          ),
        ),
        concatMap((event) => concat(of(event), next(input))),
      );
    });
  }

  private createTool(name: string, descriptions: Readonly<Record<string, string>>): Tool {
    const listing = this.names.map((n) => (descriptions[n] ? `${n} (${descriptions[n]})` : n)).join(', ');
    return defineTool({
      name,
      description:
        `Searches the knowledge bases (${listing}) and returns the most relevant passages, numbered, each headed by its ` +
        'source and lines. Cite the sources you use in your answer, e.g. [guide/setup.md:12-20].',
      input: z.object({
        query: z.string().min(1).describe('What to look for, in your own words (a question or keywords).'),
        knowledge_bases: z
          .array(z.enum(this.names))
          .min(1)
          .optional()
          .describe('Which knowledge bases to search. Default: all of them.'),
      }),
      readOnly: true,
      concurrencySafe: true,
      execute: (args, toolCtx) =>
        this.searchForTool(args, toolCtx.signal, toolCtx.userId).pipe(map(({ text }) => text)),
    });
  }

  /** One search of the tool: the result and the text the model gets. */
  private searchForTool(
    { query, knowledge_bases }: SearchArgs,
    signal: AbortSignal,
    userId: string | undefined,
  ): Observable<{ result: KnowledgeSearchResult; text: string }> {
    const names = knowledge_bases ? [...new Set(knowledge_bases)] : this.names;
    return searchKnowledgeBases(this.bases, names, query, {
      topK: this.topK,
      signal,
      ...(userId !== undefined ? { scope: userId } : {}),
      ...(this.scoreThreshold !== undefined ? { scoreThreshold: this.scoreThreshold } : {}),
      ...(this.rrfK !== undefined ? { rrfK: this.rrfK } : {}),
    }).pipe(
      map((result) => ({
        result,
        text:
          result.hits.length || result.failures.length
            ? formatKnowledge(result)
            : `Nothing found for "${query}" in ${names.join(', ')}.`,
      })),
    );
  }
}

/** The arguments of the search tool. */
interface SearchArgs {
  readonly query: string;
  readonly knowledge_bases?: readonly string[] | undefined;
}

/**
 * The value of `CUSTOM rag.retrieved` (plus `toolCallId` in agentic mode): what one retrieval
 * found, for a UI's citations.
 *
 * @example
 * ```ts
 * const retrieved = events.find((e) => e.type === 'CUSTOM' && e.name === 'rag.retrieved')?.value as RagRetrievedValue;
 * retrieved.hits.map((h) => h.citation); // ['handbook/refunds.md:1-3', ...]
 * ```
 */
export interface RagRetrievedValue {
  readonly query: string;
  readonly hits: readonly {
    readonly id: string;
    readonly knowledgeBase: string;
    readonly source: string;
    readonly citation: string;
    readonly score: number;
  }[];
  readonly failures: KnowledgeSearchResult['failures'];
  /** Agentic mode: the search call this retrieval answered. */
  readonly toolCallId?: string;
}

function retrievedValue(result: KnowledgeSearchResult): RagRetrievedValue {
  const hits = result.hits.map((h) => ({
    id: h.id,
    knowledgeBase: h.knowledgeBase,
    source: h.source,
    citation: citationOf(h),
    score: h.score,
  }));
  return { query: result.query, hits, failures: result.failures };
}
