import { newId } from '../util/id.js';
import type { AgentEventOf, AgentEventType, EventFields } from './events.js';

/** Where an event comes from: the reply it belongs to and the agent that emitted it. */
export interface EventOrigin {
  readonly replyId: string;
  readonly source: string;
}

/**
 * Something that builds the events of one reply: `RuntimeContext` is one (its `event()` fills in
 * the reply's id and source). The stream helpers take this much of a context.
 *
 * @example
 * ```ts
 * const factory: EventFactory = { event: (type, fields) => createEvent(type, fields, { replyId, source: 'assistant' }) };
 * closeOpenStream(factory, open, { status: 'error', why: 'the model stalled' });
 * ```
 */
export interface EventFactory {
  /** Builds an event of this reply (id, reply id, source and timestamp filled in). */
  event<T extends AgentEventType>(type: T, fields: EventFields[T]): AgentEventOf<T>;
}

/**
 * Builds a complete event of `type` from its own fields and its origin (id and timestamp are
 * filled in). Middlewares usually call {@link RuntimeContext.event} instead, which knows the origin.
 *
 * @example
 * ```ts
 * const e = createEvent('CUSTOM', { name: 'progress', value: 0.5 }, { replyId, source: 'assistant' });
 * ```
 */
export function createEvent<T extends AgentEventType>(
  type: T,
  fields: EventFields[T],
  origin: EventOrigin,
  metadata?: Record<string, unknown>,
): AgentEventOf<T> {
  // Object.assign, not a spread: the field objects of different event types have many shapes,
  // and a spread over many shapes takes V8's slow path (about 3 µs an event, measured by the bench).
  const event = Object.assign({}, fields) as Record<string, unknown>;
  event['type'] = type;
  event['id'] = newId('evt');
  event['replyId'] = origin.replyId;
  event['createdAt'] = Date.now();
  event['source'] = origin.source;
  if (metadata) event['metadata'] = metadata;
  return event as unknown as AgentEventOf<T>;
}

/**
 * Types of the events that carry one streamed piece of a block and nothing else (`TOOL_CALL_DELTA`
 * also carries its `toolCallId`: build it with `createEvent`).
 */
export type DeltaEventType = 'TEXT_BLOCK_DELTA' | 'THINKING_BLOCK_DELTA' | 'TOOL_RESULT_DELTA' | 'DATA_BLOCK_DELTA';

/**
 * Builds a delta event. Same result as {@link createEvent}, written as one object literal of a
 * fixed shape because deltas are the hot path of every stream.
 *
 * @example
 * ```ts
 * const e = createDeltaEvent('TEXT_BLOCK_DELTA', 'blk_1', 'Hel', { replyId, source: 'assistant' });
 * ```
 */
export function createDeltaEvent<T extends DeltaEventType>(
  type: T,
  blockId: string,
  delta: string,
  origin: EventOrigin,
): AgentEventOf<T> {
  return {
    type,
    blockId,
    delta,
    id: newId('evt'),
    replyId: origin.replyId,
    createdAt: Date.now(),
    source: origin.source,
  } as unknown as AgentEventOf<T>;
}
