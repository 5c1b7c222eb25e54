// The root entry's aliases of @rxscope/middleware-builtin/memory (long-term memory), which moved to
// its own entry point. Deprecated: they are removed in the next minor version.
import * as memory from '../memory/index.js';

/**
 * Root-entry alias of `AgenticMemoryMiddleware` from `@rxscope/middleware-builtin/memory` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { AgenticMemoryMiddleware } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export const AgenticMemoryMiddleware = memory.AgenticMemoryMiddleware;
/**
 * Root-entry alias of `AgenticMemoryMiddleware` from `@rxscope/middleware-builtin/memory` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { AgenticMemoryMiddleware } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export type AgenticMemoryMiddleware = memory.AgenticMemoryMiddleware;

/**
 * Root-entry alias of `StaticMemoryMiddleware` from `@rxscope/middleware-builtin/memory` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { StaticMemoryMiddleware } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export const StaticMemoryMiddleware = memory.StaticMemoryMiddleware;
/**
 * Root-entry alias of `StaticMemoryMiddleware` from `@rxscope/middleware-builtin/memory` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { StaticMemoryMiddleware } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export type StaticMemoryMiddleware = memory.StaticMemoryMiddleware;

/**
 * Root-entry alias of `KnowledgeMemoryBackend` from `@rxscope/middleware-builtin/memory` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { KnowledgeMemoryBackend } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export const KnowledgeMemoryBackend = memory.KnowledgeMemoryBackend;
/**
 * Root-entry alias of `KnowledgeMemoryBackend` from `@rxscope/middleware-builtin/memory` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { KnowledgeMemoryBackend } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export type KnowledgeMemoryBackend = memory.KnowledgeMemoryBackend;

/**
 * Root-entry alias of `formatMemoryFile` from `@rxscope/middleware-builtin/memory` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { formatMemoryFile } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export const formatMemoryFile = memory.formatMemoryFile;

/**
 * Root-entry alias of `parseMemoryFile` from `@rxscope/middleware-builtin/memory` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { parseMemoryFile } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export const parseMemoryFile = memory.parseMemoryFile;

/**
 * Root-entry alias of `AgenticMemoryOptions` from `@rxscope/middleware-builtin/memory` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type AgenticMemoryOptions } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export type AgenticMemoryOptions = memory.AgenticMemoryOptions;

/**
 * Root-entry alias of `MemoryExchange` from `@rxscope/middleware-builtin/memory` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type MemoryExchange } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export type MemoryExchange = memory.MemoryExchange;

/**
 * Root-entry alias of `MemoryExtractor` from `@rxscope/middleware-builtin/memory` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type MemoryExtractor } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export type MemoryExtractor = memory.MemoryExtractor;

/**
 * Root-entry alias of `StaticMemoryOptions` from `@rxscope/middleware-builtin/memory` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type StaticMemoryOptions } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export type StaticMemoryOptions = memory.StaticMemoryOptions;

/**
 * Root-entry alias of `KnowledgeMemoryBackendOptions` from `@rxscope/middleware-builtin/memory` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type KnowledgeMemoryBackendOptions } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export type KnowledgeMemoryBackendOptions = memory.KnowledgeMemoryBackendOptions;

/**
 * Root-entry alias of `Memory` from `@rxscope/middleware-builtin/memory` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type Memory } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export type Memory = memory.Memory;

/**
 * Root-entry alias of `MemoryBackend` from `@rxscope/middleware-builtin/memory` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type MemoryBackend } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export type MemoryBackend = memory.MemoryBackend;

/**
 * Root-entry alias of `MemoryHeader` from `@rxscope/middleware-builtin/memory` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/memory'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type MemoryHeader } from '@rxscope/middleware-builtin/memory';
 * ```
 */
export type MemoryHeader = memory.MemoryHeader;
