/**
 * `AgenticMemoryMiddleware`: long-term memory the agent curates itself, kept in a
 * {@link MemoryBackend} (Markdown files with front matter via `FileMemoryBackend` from
 * `@rxscope/middleware-builtin/node`, or `KnowledgeMemoryBackend`).
 *
 * - **Index**: the front matter of every memory (`- name (type): description`) is added to the
 *   system prompt, within `indexTokenBudget` (about 4 characters a token; the rest is counted as
 *   "N more").
 * - **Recall**: when a reply starts, a model (the agent's own unless `selector` is given) is
 *   asked which memories matter for the user's input, from the index alone. Names it invents are
 *   dropped, at most `maxRecall` are kept, and they are read and added as a hint to the first
 *   reasoning step (`HINT_BLOCK` from `'memory'`; removed after the step). The selection runs
 *   beside the reply's start and is awaited only at the first step. A `CUSTOM {name:
 *   'memory.recalled', value: {names, dropped}}` event tells what was recalled; a failure gives
 *   `memory.error` and the step runs without memories.
 * - **Tools**: `memory_search {query}` (read-only) and `memory_add {name, description, type,
 *   content}` (adds or replaces a memory).
 *
 * Per-reply data (the pending selection) lives in the reply's context: one instance serves
 * concurrent replies.
 *
 * @example
 * ```ts
 * import { FileMemoryBackend } from '@rxscope/middleware-builtin/node';
 * const memory = new AgenticMemoryMiddleware({ backend: new FileMemoryBackend({ dir: './workspace/memory' }), maxRecall: 3 });
 * const agent = new Agent({ model, middlewares: [memory] });
 * ```
 *
 * @module
 */
import { defer, type Observable } from 'rxjs';
import { z } from 'zod';
import {
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  type ChatModel,
  ContextToken,
  modelText,
  defineTool,
  type Middleware,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  textOfMsg,
  type Tool,
  checkOptionKeys,
  optionKeys,
  OptionsError,
} from '@rxscope/core';
import type { MemoryBackend, MemoryHeader } from './memory-backend.js';
import { checkMemoryBackend } from './check-memory-backend.js';
import { type RecalledMemories, withRecalledMemories } from './recalled-memories.js';
import { checkMemoryScope, memoryBackendFor, type MemoryScope } from './memory-scope.js';

/** Options of {@link AgenticMemoryMiddleware}. */
export interface AgenticMemoryOptions {
  /** Where memories live. Required. */
  readonly backend: MemoryBackend;
  /** The model that picks memories to recall. Default: the agent's model. */
  readonly selector?: ChatModel;
  /** Most memories recalled per reply. Default 5. */
  readonly maxRecall?: number;
  /** Tokens (≈ 4 characters each) the index may take in the system prompt. Default 1000. */
  readonly indexTokenBudget?: number;
  /** Offer `memory_search` and `memory_add`. Default true. */
  readonly tools?: boolean;
  /** State key. Default `'AgenticMemoryMiddleware'`. */
  readonly key?: string;
  /**
   * Whose memories a reply sees and its tools write: `'user'` (default) keeps each user's
   * (`ctx.userId`) in the backend's `scoped(userId)` view; `'shared'`: one set for everyone.
   */
  readonly scope?: MemoryScope;
}

const RECALL = new ContextToken<Promise<RecalledMemories> | undefined>(
  'AgenticMemoryMiddleware.recall',
  () => undefined,
);

const indexLine = (h: MemoryHeader) => `- ${h.name} (${h.type}): ${h.description}`;

// Every option, typed against AgenticMemoryOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<AgenticMemoryOptions>({
  backend: true,
  scope: true,
  selector: true,
  maxRecall: true,
  indexTokenBudget: true,
  tools: true,
  key: true,
});

/**
 * Long-term memory the agent curates itself. See the module documentation.
 */
export class AgenticMemoryMiddleware implements Middleware {
  readonly key: string;
  private readonly backend: MemoryBackend;
  private readonly selector: ChatModel | undefined;
  private readonly maxRecall: number;
  private readonly indexChars: number;
  private readonly memoryTools: readonly Tool[];
  private readonly scope: MemoryScope;

  constructor(options: AgenticMemoryOptions) {
    checkOptionKeys('AgenticMemoryMiddleware', options, OPTION_KEYS);
    const owner = 'AgenticMemoryMiddleware';
    checkMemoryBackend(owner, options?.backend, 'new FileMemoryBackend({ dir })');
    const maxRecall = options.maxRecall ?? 5;
    if (!Number.isInteger(maxRecall) || maxRecall < 0)
      throw new OptionsError(
        'invalid_option',
        'AgenticMemoryMiddleware.maxRecall',
        `${owner}: maxRecall must be an integer >= 0, got ${maxRecall}.`,
      );
    const budget = options.indexTokenBudget ?? 1000;
    if (!(budget > 0))
      throw new OptionsError(
        'invalid_option',
        'AgenticMemoryMiddleware.indexTokenBudget',
        `${owner}: indexTokenBudget must be a number > 0, got ${budget}.`,
      );
    this.key = options.key ?? owner;
    this.scope = checkMemoryScope(owner, options.scope);
    this.backend = options.backend;
    this.selector = options.selector;
    this.maxRecall = maxRecall;
    this.indexChars = budget * 4;
    this.memoryTools = options.tools === false ? [] : this.createTools();
  }

  tools(): readonly Tool[] {
    return this.memoryTools;
  }

  onSystemPrompt(_agent: AgentHandle, ctx: RuntimeContext, prompt: string): Promise<string> {
    return this.backendFor(ctx.userId)
      .list()
      .then((headers) => {
        if (!headers.length) return prompt;
        const lines: string[] = [];
        let used = 0;
        for (const h of headers) {
          const line = indexLine(h);
          if (used + line.length + 1 > this.indexChars) break;
          lines.push(line);
          used += line.length + 1;
        }
        const more = headers.length - lines.length;
        const index = `${lines.join('\n')}${more ? `\n(… ${more} more; use memory_search)` : ''}`;
        return `${prompt}\n\n## Long-term memory\nMemories you kept (name (type): description):\n${index}`;
      });
  }

  /** The backend of a user's replies (see `scope`). */
  private backendFor(userId: string | undefined): MemoryBackend {
    return memoryBackendFor('AgenticMemoryMiddleware', this.backend, this.scope, userId);
  }

  onAgent(agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() => {
      const question = input.messages
        .filter((m) => m.role === 'user')
        .map(textOfMsg)
        .join('\n')
        .trim();
      if (question && this.maxRecall > 0) {
        // Started now, beside the reply's start; awaited at the first reasoning step.
        const backend = this.backendFor(ctx.userId);
        const recall = this.recall(backend, this.selector ?? agent.model, question, ctx.signal);
        recall.catch(() => undefined); // reported at the first step, never as an unhandled rejection
        ctx.set(RECALL, recall);
      }
      return next(input);
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
    return withRecalledMemories(this.key, ctx, recall, input, next);
  }

  /** Asks the selector which memories matter for `question`, keeps real names only, reads them. */
  private async recall(
    backend: MemoryBackend,
    model: ChatModel,
    question: string,
    signal: AbortSignal,
  ): Promise<RecalledMemories> {
    const headers = await backend.list();
    if (!headers.length) return { memories: [], dropped: [] };
    const system =
      `Pick the memories that help answer the user's message. Answer with a JSON array of memory names only ` +
      `(at most ${this.maxRecall}; [] if none), nothing else.\n\nMemories:\n${headers.map(indexLine).join('\n')}`;
    const answer = await modelText(model, { system, user: question, signal });
    const picked = parseNames(answer);
    const known = new Set(headers.map((h) => h.name));
    const chosen = [...new Set(picked.filter((n) => known.has(n)))].slice(0, this.maxRecall);
    const dropped = picked.filter((n) => !known.has(n));
    return { memories: await backend.read(chosen), dropped };
  }

  private createTools(): Tool[] {
    const search = defineTool({
      name: 'memory_search',
      description: 'Searches your long-term memories and returns the most relevant ones in full.',
      input: z.object({ query: z.string().min(1).describe('What to look for.') }),
      readOnly: true,
      execute: async ({ query }, toolCtx) => {
        const found = await this.backendFor(toolCtx.userId).search(query, 5);
        return found.length
          ? found.map((m) => `### ${m.name} (${m.type}): ${m.description}\n${m.content}`).join('\n\n')
          : `No memory matches "${query}".`;
      },
    });
    const add = defineTool({
      name: 'memory_add',
      description:
        'Saves a long-term memory for later replies (replaces the memory with the same name). Keep one topic per memory; ' +
        'the description is what you will see in the index.',
      input: z.object({
        name: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,80}$/)
          .describe('Short kebab-case name, e.g. user-preferences.'),
        description: z.string().min(1).max(200).describe('One line: what this memory holds.'),
        type: z.enum(['user', 'project', 'feedback', 'reference']).describe('The kind of memory.'),
        content: z.string().min(1).describe('The memory, in Markdown.'),
      }),
      execute: async (memory, toolCtx) => {
        await this.backendFor(toolCtx.userId).write(memory);
        return `Saved memory "${memory.name}".`;
      },
    });
    return [search, add];
  }
}

/** The names in the selector's answer: a JSON array, else the quoted or listed words. */
function parseNames(answer: string): string[] {
  const json = /\[[\s\S]*\]/.exec(answer)?.[0];
  if (json) {
    try {
      const value: unknown = JSON.parse(json);
      if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
    } catch {
      // Not JSON after all: fall back to the words below.
    }
  }
  return answer.match(/[A-Za-z0-9_-]+/g) ?? [];
}
