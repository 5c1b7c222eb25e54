import { type AnyOrama, create, insertMultiple, removeMultiple, search as oramaSearch } from '@orama/orama';
import { MarkdownTextSplitter, type TextSplitter } from '@langchain/textsplitters';
import { defer, type Observable } from 'rxjs';
import { newId, checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import {
  checkTopK,
  type EmbeddingsLike,
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

/**
 * Options of {@link InMemoryKnowledgeBase}.
 *
 * @example
 * ```ts
 * const options: InMemoryKnowledgeBaseOptions = { embeddings, chunkSize: 800, chunkOverlap: 100 };
 * ```
 */
export interface InMemoryKnowledgeBaseOptions {
  /** Any LangChain embeddings. Without them the base searches full text only (BM25). */
  readonly embeddings?: EmbeddingsLike;
  /** Characters per chunk for the default splitter. Default 1000. */
  readonly chunkSize?: number;
  /** Characters shared by neighbouring chunks for the default splitter. Default 150. */
  readonly chunkOverlap?: number;
  /** A LangChain text splitter, or `false` to keep every document whole. Default: a `MarkdownTextSplitter`. */
  readonly splitter?: TextSplitter | false;
  /** Weights of full-text and vector relevance in the hybrid score. Default `{text: 0.5, vector: 0.5}`. */
  readonly hybridWeights?: { readonly text: number; readonly vector: number };
  /** Words the full-text index ignores. Default: a short list of English function words. */
  readonly stopWords?: readonly string[];
}

interface StoredChunk {
  readonly hit: Omit<KnowledgeHit, 'score'>;
}

/** English function words that match almost every chunk and so carry no relevance. */
const STOP_WORDS = [
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'can',
  'do',
  'does',
  'for',
  'from',
  'how',
  'i',
  'in',
  'is',
  'it',
  'of',
  'on',
  'or',
  'that',
  'the',
  'this',
  'to',
  'was',
  'what',
  'when',
  'where',
  'which',
  'who',
  'why',
  'with',
  'you',
];

// Every option, typed against InMemoryKnowledgeBaseOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<InMemoryKnowledgeBaseOptions>({
  embeddings: true,
  chunkSize: true,
  chunkOverlap: true,
  splitter: true,
  hybridWeights: true,
  stopWords: true,
});

/**
 * An in-memory knowledge base with hybrid search on Orama: BM25 full text (English stemming)
 * plus vector similarity of LangChain embeddings, merged by Orama's hybrid ranking. Documents are
 * split into chunks (a `MarkdownTextSplitter` by default) that keep their source and line range
 * for citations. Re-adding a document id replaces its chunks. Browser-safe.
 *
 * Scores: with embeddings, the hybrid score (0..1, relative to the best hit of the query) and
 * `scoreThreshold` is the least cosine similarity a chunk needs to be found by meaning (chunks
 * sharing a word with the query are found by full text regardless); without embeddings, the
 * BM25 score, and `scoreThreshold` its minimum.
 *
 * @example
 * ```ts
 * const kb = new InMemoryKnowledgeBase({ embeddings: new OpenAIEmbeddings({ model: 'text-embedding-3-small' }) });
 * await kb.add([{ id: 'refunds', content: '# Refunds\nWe refund within 14 days.', metadata: { source: 'handbook/refunds.md' } }]);
 * const hits = await firstValueFrom(kb.search('how long do refunds take?', { topK: 3 }));
 * ```
 */
export class InMemoryKnowledgeBase implements KnowledgeBase {
  private readonly embeddings: EmbeddingsLike | undefined;
  private readonly splitter: TextSplitter | undefined;
  private readonly hybridWeights: { readonly text: number; readonly vector: number } | undefined;
  private readonly stopWords: readonly string[];
  private db: AnyOrama | undefined;
  private dimensions = 0;
  /** Set once a document with a `scope` was added: searches then rank everything and keep what is in scope. */
  private hasScopes = false;
  private readonly chunks = new Map<string, StoredChunk>();
  private readonly chunkIdsOf = new Map<string, readonly string[]>();
  /** Adds run one after the other, so a replaced document never leaves chunks behind. */
  private readonly writes = new SerialWrites('InMemoryKnowledgeBase');

  constructor(options: InMemoryKnowledgeBaseOptions = {}) {
    checkOptionKeys('InMemoryKnowledgeBase', options, OPTION_KEYS, {
      foreign: { embedder: 'embeddings', embedding: 'embeddings' },
    });
    const { chunkSize = 1000, chunkOverlap = 150 } = options;
    if (!Number.isInteger(chunkSize) || chunkSize < 1)
      throw new OptionsError(
        'invalid_option',
        'InMemoryKnowledgeBase.chunkSize',
        `InMemoryKnowledgeBase: chunkSize must be a positive integer, got ${chunkSize}.`,
      );
    if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
      throw new OptionsError(
        'invalid_option',
        'InMemoryKnowledgeBase.chunkOverlap',
        `InMemoryKnowledgeBase: chunkOverlap must be an integer from 0 to chunkSize - 1 (${chunkSize - 1}), got ${chunkOverlap}.`,
      );
    }
    this.embeddings = options.embeddings;
    this.splitter =
      options.splitter === false
        ? undefined
        : (options.splitter ?? new MarkdownTextSplitter({ chunkSize, chunkOverlap }));
    this.hybridWeights = options.hybridWeights;
    this.stopWords = options.stopWords ?? STOP_WORDS;
  }

  /** Number of chunks stored. */
  get size(): number {
    return this.chunks.size;
  }

  add(documents: readonly KnowledgeDocument[]): Promise<KnowledgeAddResult> {
    return this.writes.add(documents, () => this.addNow(documents));
  }

  search(query: string, options: KnowledgeSearchOptions = {}): Observable<readonly KnowledgeHit[]> {
    return defer(() => this.searchNow(query, options));
  }

  private async addNow(documents: readonly KnowledgeDocument[]): Promise<KnowledgeAddResult> {
    const pieces: { id: string; hit: Omit<KnowledgeHit, 'score'> }[] = [];
    const perDocument: Record<string, number> = {};
    for (const doc of documents) {
      const documentId = doc.id ?? newId('doc');
      const metadata = metadataWithScope(doc);
      if (doc.scope !== undefined) this.hasScopes = true;
      const parts = await this.split(doc.content);
      perDocument[documentId] = parts.length;
      parts.forEach((part, n) => {
        const id = `${documentId}#${n}`;
        pieces.push({
          id,
          hit: {
            id,
            documentId,
            content: part.text,
            source: sourceOf(documentId, metadata),
            metadata,
            ...(part.lines ? { lines: part.lines } : {}),
          },
        });
      });
    }
    const vectors =
      this.embeddings && pieces.length
        ? await this.embeddings.embedDocuments(pieces.map((p) => p.hit.content))
        : undefined;
    if (vectors && vectors.length !== pieces.length) {
      throw new Error(
        `InMemoryKnowledgeBase: the embeddings returned ${vectors.length} vectors for ${pieces.length} chunks.`,
      );
    }
    const db = this.database(vectors?.[0]?.length);
    vectors?.forEach((v, i) => {
      if (v.length !== this.dimensions) {
        throw new Error(
          `InMemoryKnowledgeBase: chunk ${pieces[i]!.id} got a ${v.length}-dimensional vector; the base holds ${this.dimensions}-dimensional ones (use one embeddings model per base).`,
        );
      }
    });
    // Replace documents added before under the same id.
    const stale = Object.keys(perDocument).flatMap((id) => this.chunkIdsOf.get(id) ?? []);
    if (stale.length) await removeMultiple(db, stale);
    for (const id of stale) this.chunks.delete(id);
    await insertMultiple(
      db,
      pieces.map((p, i) => ({ id: p.id, content: p.hit.content, ...(vectors ? { embedding: vectors[i] } : {}) })),
    );
    for (const p of pieces) this.chunks.set(p.id, { hit: p.hit });
    for (const documentId of Object.keys(perDocument)) {
      this.chunkIdsOf.set(
        documentId,
        pieces.filter((p) => p.hit.documentId === documentId).map((p) => p.id),
      );
    }
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

  private database(dimensions: number | undefined): AnyOrama {
    if (this.db) return this.db;
    if (dimensions !== undefined) this.dimensions = dimensions;
    this.db = create({
      schema:
        dimensions !== undefined ? { content: 'string', embedding: `vector[${dimensions}]` } : { content: 'string' },
      components: { tokenizer: { stemming: true, stopWords: [...this.stopWords] } },
    }) as AnyOrama;
    return this.db;
  }

  private async searchNow(query: string, options: KnowledgeSearchOptions): Promise<readonly KnowledgeHit[]> {
    const topK = checkTopK('InMemoryKnowledgeBase.search', options.topK);
    options.signal?.throwIfAborted();
    await this.writes.settled();
    const db = this.db;
    if (!db || this.chunks.size === 0) return [];
    // With a filter, rank everything and filter afterwards (the metadata is not indexed).
    const limit = options.filter || this.hasScopes ? this.chunks.size : topK;
    const vector = this.embeddings && this.dimensions ? await this.embeddings.embedQuery(query) : undefined;
    options.signal?.throwIfAborted();
    const results = await oramaSearch(
      db,
      vector
        ? {
            mode: 'hybrid',
            term: query,
            vector: { value: vector, property: 'embedding' },
            similarity: options.scoreThreshold ?? 0,
            threshold: 1,
            limit,
            ...(this.hybridWeights ? { hybridWeights: this.hybridWeights } : {}),
          }
        : { term: query, properties: ['content'], threshold: 1, limit },
    );
    const hits: KnowledgeHit[] = [];
    for (const r of results.hits) {
      const stored = this.chunks.get(r.id);
      if (!stored) continue;
      if (!vector && options.scoreThreshold !== undefined && r.score < options.scoreThreshold) continue;
      const hit: KnowledgeHit = { ...stored.hit, score: r.score };
      if (matchesFilter(hit, options.filter, options.scope)) hits.push(hit);
      if (hits.length === topK) break;
    }
    return hits;
  }
}
