// @rxscope/middleware-builtin — public API. Explicit named exports only; one middleware per folder.

// --- observability ---

// --- budgets, limits, prompts, guards ---

// --- resilience and data protection ---
