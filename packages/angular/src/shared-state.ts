import { applyJsonPatch, type JsonObject, type JsonPatchOperation } from '@rxscope/core';
import type { ChatView } from './chat-types.js';

// The agent's shared state travels as the core's STATE_SNAPSHOT and STATE_DELTA events. The chat
// reads them by these smaller shapes (what it uses of them), which the AG-UI transport also builds
// from the AG-UI protocol's state events, which carry none of the other event fields.
/** `STATE_SNAPSHOT`: the whole shared state. */
export interface StateSnapshotEvent {
  readonly type: 'STATE_SNAPSHOT';
  readonly replyId: string;
  readonly snapshot: Readonly<Record<string, unknown>>;
}
/** `STATE_DELTA`: RFC 6902 JSON Patch operations on the last state. */
export interface StateDeltaEvent {
  readonly type: 'STATE_DELTA';
  readonly replyId: string;
  readonly delta: readonly JsonPatchOperation[];
}
export type SharedStateEvent = StateSnapshotEvent | StateDeltaEvent;

/** Whether an event is one of the shared-state events (read by its `type` only). */
export function isSharedStateEvent(event: { readonly type: string }): event is SharedStateEvent {
  return event.type === 'STATE_SNAPSHOT' || event.type === 'STATE_DELTA';
}

/**
 * Folds a shared-state event into the view: a snapshot replaces the state (and clears
 * `stateStale`); a delta is applied to it. A delta that does not apply (or comes before any
 * snapshot) leaves the last good state and marks it stale until the next snapshot.
 */
export function applyStateEvent(view: ChatView, event: SharedStateEvent): ChatView {
  if (event.type === 'STATE_SNAPSHOT') {
    const snapshot = event.snapshot;
    if (typeof snapshot !== 'object' || snapshot === null || Array.isArray(snapshot))
      return { ...view, stateStale: true };
    return { ...view, state: snapshot, stateStale: false };
  }
  if (view.state === undefined || view.stateStale) return { ...view, stateStale: true };
  try {
    const next: unknown = applyJsonPatch(view.state as JsonObject, event.delta);
    if (typeof next !== 'object' || next === null || Array.isArray(next)) return { ...view, stateStale: true };
    return { ...view, state: next as Record<string, unknown> };
  } catch {
    return { ...view, stateStale: true };
  }
}
