// @rxscope/middleware-builtin/knowledge — knowledge bases and retrieval-augmented generation:
// documents split into chunks and searched (InMemoryKnowledgeBase, VectorStoreKnowledgeBase),
// several bases searched and fused, and RAGMiddleware that gives an agent what they find.
// Explicit named exports only. Browser-safe: no Node built-ins.

export { InMemoryKnowledgeBase } from './in-memory-knowledge-base.js';
export type { InMemoryKnowledgeBaseOptions } from './in-memory-knowledge-base.js';
export type {
  EmbeddingsLike,
  KnowledgeAddResult,
  KnowledgeBase,
  KnowledgeDocument,
  KnowledgeFilter,
  KnowledgeHit,
  KnowledgeSearchOptions,
} from './knowledge-base.js';
export { SCOPE_KEY } from './knowledge-base.js';
export { VectorStoreKnowledgeBase } from './vector-store-knowledge-base.js';
export type { VectorStoreKnowledgeBaseOptions, VectorStoreLike } from './vector-store-knowledge-base.js';
export { reciprocalRankFusion } from './reciprocal-rank-fusion.js';
export type { FusedHit, ReciprocalRankFusionOptions } from './reciprocal-rank-fusion.js';
export { citationOf, formatKnowledge, searchKnowledgeBases } from './search-knowledge-bases.js';
export type { KnowledgeSearchResult, SearchKnowledgeBasesOptions } from './search-knowledge-bases.js';

// --- retrieval-augmented generation ---
export { RAGMiddleware } from '../rag/index.js';
export type { RAGOptions, RagRetrievedValue } from '../rag/index.js';
