const prefix = Math.floor(Math.random() * 0x7fffffff).toString(36);
let counter = 0;

/**
 * Returns a process-unique identifier, cheap enough to call once per streamed event.
 *
 * Identifiers are a random per-process prefix plus a counter, so two processes writing to the
 * same session store do not collide and ids sort by creation order within one process.
 *
 * @example
 * ```ts
 * const replyId = newId('reply'); // "reply_k3j9x2_1f"
 * ```
 */
export function newId(kind = 'id'): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${kind}_${prefix}_${counter.toString(36)}`;
}

/**
 * True when `id` was made by {@link newId} with this `kind` in this process — for example a
 * session id the agent generated because the application gave none (telemetry then does not
 * report it as a conversation id).
 *
 * @example
 * ```ts
 * isGeneratedId(newId('session'), 'session'); // true
 * isGeneratedId('customer-42', 'session');    // false
 * ```
 */
export function isGeneratedId(id: string, kind: string): boolean {
  return id.startsWith(`${kind}_${prefix}_`);
}
