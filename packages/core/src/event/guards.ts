import type { AgentEvent, AgentEventOf, AgentEventType } from './events.js';

const EVENT_TYPES: ReadonlySet<string> = new Set<AgentEventType>([
  'REPLY_START',
  'REPLY_END',
  'MODEL_CALL_START',
  'MODEL_CALL_END',
  'TEXT_BLOCK_START',
  'TEXT_BLOCK_DELTA',
  'TEXT_BLOCK_END',
  'THINKING_BLOCK_START',
  'THINKING_BLOCK_DELTA',
  'THINKING_BLOCK_END',
  'TOOL_CALL_START',
  'TOOL_CALL_DELTA',
  'TOOL_CALL_END',
  'TOOL_RESULT_START',
  'TOOL_RESULT_DELTA',
  'TOOL_PROGRESS',
  'TOOL_RESULT_END',
  'HINT_BLOCK',
  'DATA_BLOCK_START',
  'DATA_BLOCK_DELTA',
  'DATA_BLOCK_END',
  'REQUIRE_USER_CONFIRM',
  'USER_CONFIRM_RESULT',
  'REQUIRE_EXTERNAL_EXECUTION',
  'EXTERNAL_EXECUTION_RESULT',
  'CUSTOM',
  'STATE_SNAPSHOT',
  'STATE_DELTA',
]);

/**
 * Every event type name, for validation and exhaustive UIs.
 *
 * @example
 * ```ts
 * if (!AGENT_EVENT_TYPES.has(parsed.type)) throw new Error('unknown event');
 * ```
 */
export const AGENT_EVENT_TYPES: ReadonlySet<string> = EVENT_TYPES;

/**
 * A type guard for one or more event types, usable directly in `filter`.
 *
 * @example
 * ```ts
 * agent.reply('hi').pipe(filter(isEvent('TEXT_BLOCK_DELTA')), map((e) => e.delta));
 * ```
 */
export function isEvent<T extends AgentEventType>(...types: T[]): (event: AgentEvent) => event is AgentEventOf<T> {
  if (types.length === 1) {
    const only = types[0];
    return (event): event is AgentEventOf<T> => event.type === only;
  }
  const set = new Set<string>(types);
  return (event): event is AgentEventOf<T> => set.has(event.type);
}

/** Events that open a block. */
export type BlockStartEvent = AgentEventOf<
  'TEXT_BLOCK_START' | 'THINKING_BLOCK_START' | 'TOOL_CALL_START' | 'TOOL_RESULT_START' | 'DATA_BLOCK_START'
>;
/** Events that close a block. */
export type BlockEndEvent = AgentEventOf<
  'TEXT_BLOCK_END' | 'THINKING_BLOCK_END' | 'TOOL_CALL_END' | 'TOOL_RESULT_END' | 'DATA_BLOCK_END'
>;
/** Events carrying a piece of a block's content. */
export type BlockDeltaEvent = AgentEventOf<
  'TEXT_BLOCK_DELTA' | 'THINKING_BLOCK_DELTA' | 'TOOL_CALL_DELTA' | 'TOOL_RESULT_DELTA' | 'DATA_BLOCK_DELTA'
>;

/**
 * True for events that open a block (`*_START` except `REPLY_START`/`MODEL_CALL_START`).
 *
 * @example
 * ```ts
 * const opened = events.filter(isBlockStart).length;
 * ```
 */
export function isBlockStart(event: AgentEvent): event is BlockStartEvent {
  return event.type.endsWith('_START') && 'blockId' in event;
}

/**
 * True for events that close a block.
 *
 * @example
 * ```ts
 * const closed = events.filter(isBlockEnd).length;
 * ```
 */
export function isBlockEnd(event: AgentEvent): event is BlockEndEvent {
  return event.type.endsWith('_END') && 'blockId' in event;
}

/**
 * True for block deltas.
 *
 * @example
 * ```ts
 * const chunks = events.filter(isBlockDelta).length;
 * ```
 */
export function isBlockDelta(event: AgentEvent): event is BlockDeltaEvent {
  return event.type.endsWith('_DELTA');
}

/**
 * True when `value` has the shape of an {@link AgentEvent} (a known `type` and the base fields).
 *
 * @example
 * ```ts
 * const event = JSON.parse(line); if (!isAgentEvent(event)) throw new Error('not an event');
 * ```
 */
export function isAgentEvent(value: unknown): value is AgentEvent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v['type'] === 'string' &&
    EVENT_TYPES.has(v['type']) &&
    typeof v['id'] === 'string' &&
    typeof v['replyId'] === 'string' &&
    typeof v['createdAt'] === 'number' &&
    typeof v['source'] === 'string'
  );
}
