import { MarkdownTextSplitter, type TextSplitter } from '@langchain/textsplitters';
import { defer, type Observable } from 'rxjs';
import { newId, checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import {
  checkTopK,
  type KnowledgeAddResult,
  type KnowledgeBase,
  type KnowledgeDocument,
  type KnowledgeHit,
  type KnowledgeSearchOptions,
  matchesFilter,
  metadataWithScope,
  sourceOf,
} from './knowledge-base.js';
import { SerialWrites } from './serial-writes.js';

/** A LangChain document as vector stores take and return it. */
interface StoreDocument {
  pageContent: string;
  metadata: Record<string, unknown>;
  id?: string | undefined;
}

/**
 * The part of a LangChain `VectorStore` the adapter uses: every LangChain vector store
 * (`MemoryVectorStore`, Chroma, PGVector, Qdrant, ...) fits. `delete({ids})` is needed only to
 * re-add a document (replace its chunks).
 *
 * @example
 * ```ts
 * const store: VectorStoreLike = await MemoryVectorStore.fromTexts([], [], embeddings);
 * ```
 */
export interface VectorStoreLike {
  similaritySearchWithScore(query: string, k?: number, filter?: never): Promise<[StoreDocument, number][]>;
  addDocuments(documents: StoreDocument[], options?: { ids?: string[] }): Promise<unknown>;
  delete?(params?: { ids?: string[] }): Promise<void>;
}

/**
 * Options of {@link VectorStoreKnowledgeBase}.
 *
 * @example
 * ```ts
 * const options: VectorStoreKnowledgeBaseOptions = { store: new MemoryVectorStore(embeddings), scores: 'similarity' };
 * ```
 */
export interface VectorStoreKnowledgeBaseOptions {
  /** Any LangChain vector store (it holds its own embeddings). */
  readonly store: VectorStoreLike;
  /**
   * What the store's scores mean: `'similarity'` (higher is better, e.g. `MemoryVectorStore`'s
   * cosine similarity; used as is) or `'distance'` (lower is better; turned into `1 / (1 +
   * distance)`). `scoreThreshold` applies to the result. Default `'similarity'`.
   */
  readonly scores?: 'similarity' | 'distance';
  /** The store's own filter, passed to every search (its type is the store's). */
  readonly storeFilter?: unknown;
  /** Extra hits asked of the store when a search has a `filter` (applied after). Default 4 (× topK). */
  readonly filterOverfetch?: number;
  /** Characters per chunk for the default splitter. Default 1000. */
  readonly chunkSize?: number;
  /** Characters shared by neighbouring chunks. Default 150. */
  readonly chunkOverlap?: number;
  /** A LangChain text splitter, or `false` to store every document whole. Default: a `MarkdownTextSplitter`. */
  readonly splitter?: TextSplitter | false;
}

/** Metadata keys the adapter adds to the chunks it stores (removed again from hits). */
const DOCUMENT_ID = 'rxscopeDocumentId';
const CHUNK_ID = 'rxscopeChunkId';
// Which add of its document a chunk belongs to: the chunks of an earlier add are superseded.
const GENERATION = 'rxscopeGeneration';

// Every option, typed against VectorStoreKnowledgeBaseOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<VectorStoreKnowledgeBaseOptions>({
  store: true,
  scores: true,
  storeFilter: true,
  filterOverfetch: true,
  chunkSize: true,
  chunkOverlap: true,
  splitter: true,
});

/**
 * Any LangChain `VectorStore` as a {@link KnowledgeBase}, so `RAGMiddleware` can mount a vector
 * database next to (and fused with) other bases. `add` splits documents into chunks (a
 * `MarkdownTextSplitter` by default) that keep their source and line range for citations;
 * `search` calls `similaritySearchWithScore`. Documents already in the store (added without the
 * adapter) are found too, cited by their `metadata.source`.
 *
 * @example
 * ```ts
 * import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory';
 * const handbook = new VectorStoreKnowledgeBase({ store: new MemoryVectorStore(new OpenAIEmbeddings()) });
 * await handbook.add([{ id: 'refunds', content: '# Refunds\n...', metadata: { source: 'handbook/refunds.md' } }]);
 * const rag = new RAGMiddleware({ knowledgeBases: { handbook } });
 * ```
 */
export class VectorStoreKnowledgeBase implements KnowledgeBase {
  private readonly store: VectorStoreLike;
  private readonly scores: 'similarity' | 'distance';
  private readonly storeFilter: unknown;
  private readonly overfetch: number;
  private readonly splitter: TextSplitter | undefined;
  private readonly chunkIdsOf = new Map<string, readonly string[]>();
  /** The current add of each document; chunks of older adds that the store kept are skipped in searches. */
  private readonly generationOf = new Map<string, number>();
  /** Superseded chunks the store could not delete (searched past, so they never take a hit's place). */
  private superseded = 0;
  /** Adds run one after the other, so a replaced document never leaves chunks behind. */
  private readonly writes = new SerialWrites('VectorStoreKnowledgeBase');

  constructor(options: VectorStoreKnowledgeBaseOptions) {
    checkOptionKeys('VectorStoreKnowledgeBase', options, OPTION_KEYS, { foreign: { vectorStore: 'store' } });
    const owner = 'VectorStoreKnowledgeBase';
    if (
      typeof options?.store?.similaritySearchWithScore !== 'function' ||
      typeof options.store.addDocuments !== 'function'
    ) {
      throw new OptionsError(
        'invalid_option',
        'VectorStoreKnowledgeBase.store',
        `${owner}: store must be a LangChain VectorStore (with similaritySearchWithScore and addDocuments).`,
      );
    }
    if (options.scores !== undefined && options.scores !== 'similarity' && options.scores !== 'distance') {
      throw new OptionsError(
        'invalid_option',
        'VectorStoreKnowledgeBase.scores',
        `${owner}: scores must be 'similarity' or 'distance', got ${JSON.stringify(options.scores)}.`,
      );
    }
    const { chunkSize = 1000, chunkOverlap = 150 } = options;
    if (
      !Number.isInteger(chunkSize) ||
      chunkSize < 1 ||
      !Number.isInteger(chunkOverlap) ||
      chunkOverlap < 0 ||
      chunkOverlap >= chunkSize
    ) {
      throw new OptionsError(
        'invalid_option',
        'VectorStoreKnowledgeBase.chunkOverlap',
        `${owner}: chunkSize must be a positive integer and chunkOverlap an integer from 0 to chunkSize - 1.`,
      );
    }
    this.store = options.store;
    this.scores = options.scores ?? 'similarity';
    this.storeFilter = options.storeFilter;
    this.overfetch = options.filterOverfetch ?? 4;
    this.splitter =
      options.splitter === false
        ? undefined
        : (options.splitter ?? new MarkdownTextSplitter({ chunkSize, chunkOverlap }));
  }

  add(documents: readonly KnowledgeDocument[]): Promise<KnowledgeAddResult> {
    return this.writes.add(documents, () => this.addNow(documents));
  }

  search(query: string, options: KnowledgeSearchOptions = {}): Observable<readonly KnowledgeHit[]> {
    return defer(() => this.searchNow(query, options));
  }

  private async addNow(documents: readonly KnowledgeDocument[]): Promise<KnowledgeAddResult> {
    const chunks: StoreDocument[] = [];
    const ids: string[] = [];
    const perDocument: Record<string, number> = {};
    const generations = new Map<string, number>();
    for (const doc of documents) {
      const documentId = doc.id ?? newId('doc');
      const generation = (generations.get(documentId) ?? this.generationOf.get(documentId) ?? 0) + 1;
      generations.set(documentId, generation);
      const parts = await this.split(doc.content);
      perDocument[documentId] = parts.length;
      parts.forEach((part, n) => {
        const id = `${documentId}#${n}`;
        ids.push(id);
        const loc = part.lines ? { loc: { lines: part.lines } } : {};
        chunks.push({
          id,
          pageContent: part.text,
          metadata: {
            ...metadataWithScope(doc),
            ...loc,
            [DOCUMENT_ID]: documentId,
            [CHUNK_ID]: id,
            [GENERATION]: generation,
          },
        });
      });
    }
    const stale = Object.keys(perDocument).flatMap((id) => this.chunkIdsOf.get(id) ?? []);
    // Old chunks are deleted where the store can (most databases); a store that cannot (LangChain's
    // MemoryVectorStore throws from delete()) keeps them, and searches skip them by generation.
    if (stale.length) {
      const deleted = this.store.delete
        ? await this.store.delete({ ids: stale }).then(
            () => true,
            () => false,
          )
        : false;
      if (!deleted) this.superseded += stale.length;
    }
    if (chunks.length) await this.store.addDocuments(chunks, { ids });
    for (const documentId of Object.keys(perDocument)) {
      this.chunkIdsOf.set(
        documentId,
        ids.filter((id) => id.startsWith(`${documentId}#`)),
      );
    }
    for (const [documentId, generation] of generations) this.generationOf.set(documentId, generation);
    return { chunks: perDocument };
  }

  private async split(text: string): Promise<{ text: string; lines?: { from: number; to: number } }[]> {
    if (!this.splitter) return [{ text, lines: { from: 1, to: text.split('\n').length } }];
    const docs = await this.splitter.createDocuments([text]);
    return docs.map((d) => {
      const lines = (d.metadata as { loc?: { lines?: { from: number; to: number } } }).loc?.lines;
      return { text: d.pageContent, ...(lines ? { lines: { from: lines.from, to: lines.to } } : {}) };
    });
  }

  private async searchNow(query: string, options: KnowledgeSearchOptions): Promise<readonly KnowledgeHit[]> {
    const topK = checkTopK('VectorStoreKnowledgeBase.search', options.topK);
    options.signal?.throwIfAborted();
    await this.writes.settled();
    // Scoped documents of other users may come first: ask for more, as with a filter.
    const k = (options.filter || options.scope !== undefined ? topK * this.overfetch : topK) + this.superseded;
    const found = await this.store.similaritySearchWithScore(query, k, this.storeFilter as never);
    options.signal?.throwIfAborted();
    const hits: KnowledgeHit[] = [];
    found.forEach(([doc, raw], i) => {
      if (this.isSuperseded(doc)) return;
      const score = this.scores === 'distance' ? 1 / (1 + raw) : raw;
      if (options.scoreThreshold !== undefined && score < options.scoreThreshold) return;
      const hit = toHit(doc, score, i);
      if (hits.length < topK && matchesFilter(hit, options.filter, options.scope)) hits.push(hit);
    });
    return hits;
  }

  private isSuperseded(doc: StoreDocument): boolean {
    const documentId = doc.metadata[DOCUMENT_ID];
    const generation = doc.metadata[GENERATION];
    if (typeof documentId !== 'string' || typeof generation !== 'number') return false;
    return generation !== this.generationOf.get(documentId);
  }
}

/** A store document as a hit: the adapter's own chunks keep their ids; others are cited by source. */
function toHit(doc: StoreDocument, score: number, rank: number): KnowledgeHit {
  const { [DOCUMENT_ID]: documentId, [CHUNK_ID]: chunkId, [GENERATION]: _generation, loc, ...metadata } = doc.metadata;
  const lines = (loc as { lines?: { from?: unknown; to?: unknown } } | undefined)?.lines;
  const source = typeof metadata['source'] === 'string' && metadata['source'] ? metadata['source'] : undefined;
  const docId = typeof documentId === 'string' ? documentId : (doc.id ?? source ?? `document-${rank + 1}`);
  return {
    id: typeof chunkId === 'string' ? chunkId : (doc.id ?? `${docId}#${rank}`),
    documentId: docId,
    content: doc.pageContent,
    source: sourceOf(docId, metadata),
    ...(typeof lines?.from === 'number' && typeof lines.to === 'number'
      ? { lines: { from: lines.from, to: lines.to } }
      : {}),
    score,
    metadata,
  };
}
