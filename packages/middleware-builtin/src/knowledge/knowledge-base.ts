/**
 * The knowledge base contract that `RAGMiddleware` searches: documents go in with `add`, chunks
 * come out of `search` with their source, so an answer can cite where it found something.
 *
 * @example
 * ```ts
 * const kb: KnowledgeBase = new InMemoryKnowledgeBase({ embeddings });
 * await kb.add([{ id: 'refunds', content: refundPolicy, metadata: { source: 'handbook/refunds.md' } }]);
 * kb.search('how long do refunds take?', { topK: 3 }).subscribe((hits) => hits.forEach((h) => console.log(h.source, h.score)));
 * ```
 *
 * @module
 */
import type { Observable, ObservableInput } from 'rxjs';

/**
 * A document to add to a knowledge base. `metadata.source` (a path or URL) is what citations
 * show; without it, the document's `id` is the source.
 *
 * @example
 * ```ts
 * const doc: KnowledgeDocument = { id: 'refunds', content: '# Refunds\n...', metadata: { source: 'handbook/refunds.md', team: 'billing' } };
 * ```
 */
export interface KnowledgeDocument {
  /** Stable id; adding a document with an id already present replaces its chunks. Default: a fresh id. */
  readonly id?: string;
  readonly content: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * The scope (a user id) the document belongs to: only searches with the same `scope` find it.
   * Without one the document is shared: every search finds it. Kept in the metadata under
   * {@link SCOPE_KEY}.
   */
  readonly scope?: string;
}

/** The metadata key a document's `scope` is kept under. */
export const SCOPE_KEY = 'rxscope.scope';

/**
 * A document's metadata with its scope (checked: a non-empty string).
 *
 * @example
 * ```ts
 * metadataWithScope({ content: 'x', scope: 'alice' }); // { 'rxscope.scope': 'alice' }
 * ```
 */
export function metadataWithScope(doc: KnowledgeDocument): Readonly<Record<string, unknown>> {
  if (doc.scope === undefined) return doc.metadata ?? {};
  if (typeof doc.scope !== 'string' || !doc.scope)
    throw new TypeError(`a document's scope must be a non-empty string (a user id), got ${JSON.stringify(doc.scope)}.`);
  return { ...doc.metadata, [SCOPE_KEY]: doc.scope };
}

/**
 * One chunk found by a search.
 *
 * @example
 * ```ts
 * const cite = (h: KnowledgeHit) => `${h.source}${h.lines ? `:${h.lines.from}-${h.lines.to}` : ''}`;
 * ```
 */
export interface KnowledgeHit {
  /** Id of the chunk (`<documentId>#<n>` in the in-memory base). */
  readonly id: string;
  /** Id of the document the chunk belongs to. */
  readonly documentId: string;
  readonly content: string;
  /** Where the chunk comes from: the document's `metadata.source`, else its id. */
  readonly source: string;
  /** Lines of the document the chunk spans (from 1), when the base knows them. */
  readonly lines?: { readonly from: number; readonly to: number };
  /** Relevance as the base reports it, higher is better; only comparable within one base and one query. */
  readonly score: number;
  /** The document's metadata. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * Restricts a search: metadata fields that must equal the given values, or a predicate.
 *
 * @example
 * ```ts
 * kb.search('refunds', { filter: { team: 'billing' } });
 * kb.search('refunds', { filter: (hit) => hit.source.startsWith('handbook/') });
 * ```
 */
export type KnowledgeFilter = Readonly<Record<string, unknown>> | ((hit: KnowledgeHit) => boolean);

/**
 * Options of {@link KnowledgeBase.search}.
 *
 * @example
 * ```ts
 * const options: KnowledgeSearchOptions = { topK: 5, scoreThreshold: 0.3, signal: ctx.signal };
 * ```
 */
export interface KnowledgeSearchOptions {
  /** Most hits to return. Default 5. */
  readonly topK?: number;
  readonly filter?: KnowledgeFilter;
  /** The least relevance a hit needs, in the base's own scale (see the base). Default: none. */
  readonly scoreThreshold?: number;
  /** Aborted when the search is no longer wanted. */
  readonly signal?: AbortSignal;
  /**
   * Whose documents to search besides the shared ones (a user id, `ctx.userId`): documents added
   * with another `scope` are never found. Without it, only shared documents are.
   */
  readonly scope?: string;
}

/**
 * What `add` reports: the chunks stored per document.
 *
 * @example
 * ```ts
 * const { chunks } = await kb.add(docs); // { refunds: 3, shipping: 1 }
 * ```
 */
export interface KnowledgeAddResult {
  readonly chunks: Readonly<Record<string, number>>;
}

/**
 * A searchable store of documents. Implementations: `InMemoryKnowledgeBase` (hybrid full-text +
 * vector), `VectorStoreKnowledgeBase` (any LangChain vector store), or your own.
 *
 * @example
 * ```ts
 * const empty: KnowledgeBase = { search: () => of([]), add: async () => ({ chunks: {} }) };
 * ```
 */
export interface KnowledgeBase {
  /**
   * The best chunks for `query`: emits **one array** of hits, best first, then completes (read
   * it with `firstValueFrom`). Cold: nothing runs before subscribe; unsubscribing cancels.
   */
  search(query: string, options?: KnowledgeSearchOptions): Observable<readonly KnowledgeHit[]>;
  /** Adds (or replaces, by id) documents. `await` it, or subscribe to it. */
  add(documents: readonly KnowledgeDocument[]): ObservableInput<KnowledgeAddResult>;
}

/**
 * The part of a LangChain `Embeddings` the knowledge bases use: any LangChain embeddings
 * (`OpenAIEmbeddings` against any OpenAI-compatible server, or another provider's) fits.
 *
 * @example
 * ```ts
 * const embeddings: EmbeddingsLike = new OpenAIEmbeddings({ model: 'text-embedding-3-small' });
 * ```
 */
export interface EmbeddingsLike {
  embedDocuments(documents: string[]): Promise<number[][]>;
  embedQuery(document: string): Promise<number[]>;
}

/** The source of a document: `metadata.source` when it is a non-empty string, else the id. */
export function sourceOf(documentId: string, metadata: Readonly<Record<string, unknown>>): string {
  const source = metadata['source'];
  return typeof source === 'string' && source ? source : documentId;
}

/** Whether `hit` is in `scope` (shared, or of that scope) and passes `filter` (metadata equality, or the predicate). */
export function matchesFilter(
  hit: KnowledgeHit,
  filter: KnowledgeFilter | undefined,
  scope: string | undefined = undefined,
): boolean {
  const own = hit.metadata[SCOPE_KEY];
  if (own !== undefined && own !== scope) return false;
  if (!filter) return true;
  if (typeof filter === 'function') return filter(hit);
  return Object.entries(filter).every(([key, value]) => Object.is(hit.metadata[key], value));
}

/** Checks `topK` (a positive integer) and returns it, or the default. */
export function checkTopK(owner: string, topK: number | undefined, fallback = 5): number {
  if (topK === undefined) return fallback;
  if (!Number.isInteger(topK) || topK < 1)
    throw new RangeError(`${owner}: topK must be a positive integer, got ${topK}.`);
  return topK;
}
