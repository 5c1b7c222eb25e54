import type { ChatModel } from './chat-model.js';

/** Models that abort their own request when their stream is unsubscribed (the adapters of this package). */
const selfAborting = new WeakSet<object>();

/**
 * Marks a model whose `stream()` aborts its request on unsubscribe by itself (its own
 * AbortController, linked to `request.signal`). The agent's model step then passes the
 * call's input signal as is, instead of making one more AbortController per call to abort on
 * unsubscribe: in Node 20 an AbortSignal costs several µs to make and outlives young-generation
 * collections with what its listeners hold.
 *
 * @example
 * ```ts
 * class MyModel implements ChatModel { constructor() { markSelfAborting(this); } ... }
 * ```
 */
export function markSelfAborting(model: ChatModel): void {
  selfAborting.add(model);
}

/**
 * True for a model marked with {@link markSelfAborting}.
 *
 * @example
 * ```ts
 * const signal = isSelfAborting(model) ? input.signal : new AbortController().signal;
 * ```
 */
export function isSelfAborting(model: ChatModel): boolean {
  return selfAborting.has(model);
}
