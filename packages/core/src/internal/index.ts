// @rxscope/core/internal — the pieces of the engine that rxscope's own packages build on:
// the permission engine, middleware chain composition, state migration, tool-argument parsing,
// id recognition. NOT a public API: no semver promise, any release may change or remove an
// export. Applications and third-party middlewares use the root entry (`@rxscope/core`); see
// docs/public-api.md for what is public and why.

// permission engine (the decision order of docs/human-in-the-loop.md)
export { decidePermission } from '../permission/engine.js';
export type { PermissionDecision } from '../permission/engine.js';
export { describeRule, ruleMatches } from '../permission/rules.js';

// middleware chains (the agent composes them; a middleware only implements hooks)
export { chainFor, composeChain } from '../middleware/chain.js';
export type { Chain, Layer, OnionHook } from '../middleware/chain.js';

// state (parseAgentState, public, migrates on its own)
export { migrateState } from '../state/migrations.js';

// tool arguments (the loop parses and validates every call before it runs)
export { parseToolArguments, validateToolInput } from '../tool/validate.js';
export type { ParsedArguments } from '../tool/validate.js';

// ids
export { isGeneratedId } from '../util/id.js';
