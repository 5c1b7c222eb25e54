import { checkOptionKeys, optionKeys } from '@rxscope/core';
import { firstValueFrom } from 'rxjs';
import { InMemoryKnowledgeBase } from '../knowledge/in-memory-knowledge-base.js';
import type { EmbeddingsLike } from '../knowledge/knowledge-base.js';
import { checkMemory, type Memory, type MemoryBackend, type MemoryHeader } from './memory-backend.js';

/**
 * Options of {@link KnowledgeMemoryBackend}.
 *
 * @example
 * ```ts
 * new KnowledgeMemoryBackend({ embeddings: new OpenAIEmbeddings({ model: 'text-embedding-3-small' }) });
 * ```
 */
export interface KnowledgeMemoryBackendOptions {
  /** Embeddings for search by meaning; without them, full text only. */
  readonly embeddings?: EmbeddingsLike;
  /** Memories to start with. */
  readonly memories?: readonly Memory[];
}

// Every option, typed against KnowledgeMemoryBackendOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<KnowledgeMemoryBackendOptions>({
  embeddings: true,
  memories: true,
});

/**
 * Memories kept in memory and searched with an `InMemoryKnowledgeBase` (hybrid full text +
 * vectors when `embeddings` are given): for browsers, tests, or a process that loads its
 * memories from elsewhere.
 *
 * @example
 * ```ts
 * const backend = new KnowledgeMemoryBackend({ embeddings, memories: [{ name: 'prefs', description: 'Answer style', type: 'user', content: 'Short.' }] });
 * ```
 */
export class KnowledgeMemoryBackend implements MemoryBackend {
  private readonly memories = new Map<string, Memory>();
  private readonly kb: InMemoryKnowledgeBase;
  /** Indexing of the initial memories; searches wait for it (and fail with it). */
  private readonly ready: Promise<unknown>;
  private readonly embeddings: EmbeddingsLike | undefined;
  /** The views of `scoped()`, one per scope (each with its own memories and index). */
  private readonly scopes = new Map<string, KnowledgeMemoryBackend>();

  constructor(options: KnowledgeMemoryBackendOptions = {}) {
    checkOptionKeys('KnowledgeMemoryBackend', options, OPTION_KEYS);
    this.embeddings = options.embeddings;
    this.kb = new InMemoryKnowledgeBase({
      splitter: false,
      ...(options.embeddings ? { embeddings: options.embeddings } : {}),
    });
    for (const m of options.memories ?? []) this.memories.set(checkMemory(m).name, m);
    this.ready = this.memories.size ? this.index([...this.memories.values()]) : Promise.resolve();
    // A failure is reported by the first search, not as an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  list(): Promise<readonly MemoryHeader[]> {
    return Promise.resolve(
      [...this.memories.values()].map(({ name, description, type }) => ({ name, description, type })),
    );
  }

  read(names: readonly string[]): Promise<readonly Memory[]> {
    return Promise.resolve(names.flatMap((n) => (this.memories.has(n) ? [this.memories.get(n)!] : [])));
  }

  async write(memory: Memory): Promise<void> {
    checkMemory(memory);
    this.memories.set(memory.name, memory);
    await this.index([memory]);
  }

  async search(query: string, topK: number): Promise<readonly Memory[]> {
    await this.ready;
    const hits = await firstValueFrom(this.kb.search(query, { topK }), { defaultValue: [] });
    return hits.flatMap((h) => (this.memories.has(h.documentId) ? [this.memories.get(h.documentId)!] : []));
  }

  /** The memories of one scope (a user): they start empty and stay apart from every other scope. */
  scoped(scope: string): KnowledgeMemoryBackend {
    let view = this.scopes.get(scope);
    if (!view) {
      view = new KnowledgeMemoryBackend(this.embeddings ? { embeddings: this.embeddings } : {});
      this.scopes.set(scope, view);
    }
    return view;
  }

  private index(memories: readonly Memory[]): Promise<unknown> {
    return this.kb.add(memories.map((m) => ({ id: m.name, content: `${m.description}\n${m.content}` })));
  }
}
