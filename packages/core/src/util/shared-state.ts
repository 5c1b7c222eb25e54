import type { JsonObject, JsonPatchOperation } from './json-patch.js';

/**
 * The shared state of a session: one JSON object that middlewares (`ctx.sharedState`) and tools
 * (`toolCtx.sharedState`) update while a reply runs and that frontends show. Saved with the
 * session. Each change that makes a difference emits `STATE_SNAPSHOT` (the first of a reply) or
 * `STATE_DELTA` (the later ones) into the running reply (docs/events.md, "Shared state").
 *
 * @example
 * ```ts
 * execute: async ({ item }, toolCtx) => {
 *   toolCtx.sharedState.patch([{ op: 'add', path: '/cart/-', value: item }]);
 *   return `added ${item}`;
 * },
 * ```
 */
export interface SharedState {
  /** The current state (`{}` until something sets it). Treat it as read-only. */
  get(): JsonObject;
  /** Replaces the whole state with `state` (a JSON object; copied). */
  set(state: JsonObject): void;
  /**
   * Applies RFC 6902 operations; throws a `JsonPatchError` (code `json_patch_failed`) and changes
   * nothing when one does not apply.
   */
  patch(operations: readonly JsonPatchOperation[]): void;
}
