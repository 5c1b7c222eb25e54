// @rxscope/middleware-builtin — public API. Explicit named exports only; one middleware per folder.

// --- observability ---
export { TracingMiddleware } from './tracing/index.js';
export type { TracingOptions } from './tracing/index.js';

// --- budgets, limits, prompts, guards ---

// --- resilience and data protection ---
