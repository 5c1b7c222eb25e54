/**
 * Aborts `target` when `source` aborts, with `reason()` (default: the source's reason). Returns
 * a function that removes the link (call it once the work `target` guards is over).
 *
 * The listener is made here, not where the link is needed, so it holds only what this function
 * was given. A listener written inline shares its scope's closure context with every other
 * closure of that scope (a call's subscriber, its state, the reply's context), and Node's
 * AbortSignal outlives young-generation collections: an inline listener kept a whole reply's
 * graph alive from one scavenge to the next, to be promoted and copied.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * const unlink = linkAbort(replySignal, controller);
 * try { await fetch(url, { signal: controller.signal }); } finally { unlink(); }
 * ```
 */
export function linkAbort(source: AbortSignal, target: AbortController, reason?: () => unknown): () => void {
  const onAbort = reason ? () => target.abort(reason()) : () => target.abort(source.reason);
  source.addEventListener('abort', onAbort, { once: true });
  return () => source.removeEventListener('abort', onAbort);
}
