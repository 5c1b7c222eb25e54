// The root entry's aliases of @rxscope/middleware-builtin/knowledge (knowledge bases and RAG), which moved to
// its own entry point. Deprecated: they are removed in the next minor version.
import * as knowledge from '../knowledge/index.js';

/**
 * Root-entry alias of `InMemoryKnowledgeBase` from `@rxscope/middleware-builtin/knowledge` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { InMemoryKnowledgeBase } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export const InMemoryKnowledgeBase = knowledge.InMemoryKnowledgeBase;
/**
 * Root-entry alias of `InMemoryKnowledgeBase` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { InMemoryKnowledgeBase } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type InMemoryKnowledgeBase = knowledge.InMemoryKnowledgeBase;

/**
 * Root-entry alias of `VectorStoreKnowledgeBase` from `@rxscope/middleware-builtin/knowledge` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { VectorStoreKnowledgeBase } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export const VectorStoreKnowledgeBase = knowledge.VectorStoreKnowledgeBase;
/**
 * Root-entry alias of `VectorStoreKnowledgeBase` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { VectorStoreKnowledgeBase } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type VectorStoreKnowledgeBase = knowledge.VectorStoreKnowledgeBase;

/**
 * Root-entry alias of `RAGMiddleware` from `@rxscope/middleware-builtin/knowledge` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { RAGMiddleware } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export const RAGMiddleware = knowledge.RAGMiddleware;
/**
 * Root-entry alias of `RAGMiddleware` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { RAGMiddleware } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type RAGMiddleware = knowledge.RAGMiddleware;

/**
 * Root-entry alias of `reciprocalRankFusion` from `@rxscope/middleware-builtin/knowledge` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { reciprocalRankFusion } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export const reciprocalRankFusion = knowledge.reciprocalRankFusion;

/**
 * Root-entry alias of `citationOf` from `@rxscope/middleware-builtin/knowledge` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { citationOf } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export const citationOf = knowledge.citationOf;

/**
 * Root-entry alias of `formatKnowledge` from `@rxscope/middleware-builtin/knowledge` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { formatKnowledge } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export const formatKnowledge = knowledge.formatKnowledge;

/**
 * Root-entry alias of `searchKnowledgeBases` from `@rxscope/middleware-builtin/knowledge` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { searchKnowledgeBases } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export const searchKnowledgeBases = knowledge.searchKnowledgeBases;

/**
 * Root-entry alias of `InMemoryKnowledgeBaseOptions` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type InMemoryKnowledgeBaseOptions } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type InMemoryKnowledgeBaseOptions = knowledge.InMemoryKnowledgeBaseOptions;

/**
 * Root-entry alias of `EmbeddingsLike` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type EmbeddingsLike } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type EmbeddingsLike = knowledge.EmbeddingsLike;

/**
 * Root-entry alias of `KnowledgeAddResult` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type KnowledgeAddResult } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type KnowledgeAddResult = knowledge.KnowledgeAddResult;

/**
 * Root-entry alias of `KnowledgeBase` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type KnowledgeBase } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type KnowledgeBase = knowledge.KnowledgeBase;

/**
 * Root-entry alias of `KnowledgeDocument` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type KnowledgeDocument } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type KnowledgeDocument = knowledge.KnowledgeDocument;

/**
 * Root-entry alias of `KnowledgeFilter` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type KnowledgeFilter } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type KnowledgeFilter = knowledge.KnowledgeFilter;

/**
 * Root-entry alias of `KnowledgeHit` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type KnowledgeHit } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type KnowledgeHit = knowledge.KnowledgeHit;

/**
 * Root-entry alias of `KnowledgeSearchOptions` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type KnowledgeSearchOptions } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type KnowledgeSearchOptions = knowledge.KnowledgeSearchOptions;

/**
 * Root-entry alias of `VectorStoreKnowledgeBaseOptions` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type VectorStoreKnowledgeBaseOptions } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type VectorStoreKnowledgeBaseOptions = knowledge.VectorStoreKnowledgeBaseOptions;

/**
 * Root-entry alias of `VectorStoreLike` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type VectorStoreLike } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type VectorStoreLike = knowledge.VectorStoreLike;

/**
 * Root-entry alias of `FusedHit` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type FusedHit } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type FusedHit = knowledge.FusedHit;

/**
 * Root-entry alias of `ReciprocalRankFusionOptions` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type ReciprocalRankFusionOptions } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type ReciprocalRankFusionOptions = knowledge.ReciprocalRankFusionOptions;

/**
 * Root-entry alias of `KnowledgeSearchResult` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type KnowledgeSearchResult } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type KnowledgeSearchResult = knowledge.KnowledgeSearchResult;

/**
 * Root-entry alias of `SearchKnowledgeBasesOptions` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type SearchKnowledgeBasesOptions } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type SearchKnowledgeBasesOptions = knowledge.SearchKnowledgeBasesOptions;

/**
 * Root-entry alias of `RAGOptions` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type RAGOptions } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type RAGOptions = knowledge.RAGOptions;

/**
 * Root-entry alias of `RagRetrievedValue` from `@rxscope/middleware-builtin/knowledge` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/knowledge'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type RagRetrievedValue } from '@rxscope/middleware-builtin/knowledge';
 * ```
 */
export type RagRetrievedValue = knowledge.RagRetrievedValue;
