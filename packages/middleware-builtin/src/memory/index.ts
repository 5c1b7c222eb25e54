// @rxscope/middleware-builtin/memory — long-term memory for any Agent: named records kept in a
// MemoryBackend, curated by the agent (AgenticMemoryMiddleware, tools memory_search/memory_add)
// or recalled and written back on its own (StaticMemoryMiddleware). Explicit named exports only.
// Browser-safe: the file backend (FileMemoryBackend) is in @rxscope/middleware-builtin/node.

export { AgenticMemoryMiddleware } from './agentic-memory.js';
export type { AgenticMemoryOptions } from './agentic-memory.js';
export { StaticMemoryMiddleware } from './static-memory.js';
export type { MemoryExchange, MemoryExtractor, StaticMemoryOptions } from './static-memory.js';
export { checkMemoryScope, memoryBackendFor, MemoryScopeError } from './memory-scope.js';
export type { MemoryScope } from './memory-scope.js';
export { KnowledgeMemoryBackend } from './knowledge-memory-backend.js';
export type { KnowledgeMemoryBackendOptions } from './knowledge-memory-backend.js';
export { formatMemoryFile, parseMemoryFile } from './memory-backend.js';
export type { Memory, MemoryBackend, MemoryHeader } from './memory-backend.js';
// The embeddings a KnowledgeMemoryBackend is given (the same type as /knowledge's).
export type { EmbeddingsLike } from '../knowledge/knowledge-base.js';
