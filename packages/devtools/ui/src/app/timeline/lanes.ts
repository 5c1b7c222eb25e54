import type { RecordedEvent } from '@rxscope/devtools';
import { eventType, objectField, stringField } from '../records/event-fields';

/** The phases of a reply, one timeline lane each, top to bottom. */
export type LaneId = 'reply' | 'reasoning' | 'model' | 'tool' | 'subagent';

/** The lanes in the order they are drawn, with the names people read. */
export const LANES: readonly { readonly id: LaneId; readonly label: string }[] = [
  { id: 'reply', label: 'Reply' },
  { id: 'reasoning', label: 'Reasoning steps' },
  { id: 'model', label: 'Model calls' },
  { id: 'tool', label: 'Tool calls' },
  { id: 'subagent', label: 'Subagents' },
];

/** How a marble is drawn: its shape and colour say what kind of event it is. */
export type MarbleKind = 'start' | 'end' | 'point' | 'error' | 'confirm' | 'compaction' | 'eviction' | 'flag';

const REPLY_TYPES = new Set([
  'REPLY_START',
  'REPLY_END',
  'REQUIRE_USER_CONFIRM',
  'USER_CONFIRM_RESULT',
  'REQUIRE_EXTERNAL_EXECUTION',
  'EXTERNAL_EXECUTION_RESULT',
]);
const MODEL_PREFIXES = ['MODEL_CALL_', 'TEXT_BLOCK_', 'THINKING_BLOCK_', 'TOOL_CALL_', 'DATA_BLOCK_'];
const HOOK_LANES: Record<string, LaneId> = {
  onAgent: 'reply',
  onReasoning: 'reasoning',
  onModelCall: 'model',
  onActing: 'tool',
};

/**
 * The lane of an event: a subagent's forwarded event (its `source` is not the reply's agent) goes
 * to the subagent lane; the reply's own events by their type; the rest (CUSTOM, hints, state) by
 * the hook whose layers they passed — a compaction emitted around a reasoning step sits on the
 * reasoning lane.
 */
export function laneOf(e: RecordedEvent, agentName: string): LaneId {
  const source = stringField(e, 'source');
  if (source !== undefined && source !== agentName) return 'subagent';
  const type = eventType(e);
  if (REPLY_TYPES.has(type)) return 'reply';
  if (MODEL_PREFIXES.some((p) => type.startsWith(p))) return 'model';
  if (type.startsWith('TOOL_RESULT_') || type === 'TOOL_PROGRESS') return 'tool';
  return HOOK_LANES[e.hook] ?? 'reply';
}

/** Whether an event failed: an error field, an `error` finish, or a tool result with status `error`. */
function failed(e: RecordedEvent): boolean {
  if (objectField(e, 'error')) return true;
  const type = eventType(e);
  if (type === 'REPLY_END') return stringField(e, 'finishReason') === 'error';
  if (type === 'TOOL_RESULT_END') return stringField(e, 'status') === 'error';
  return false;
}

/** The kind of marble an event is drawn as. */
export function marbleKind(e: RecordedEvent): MarbleKind {
  if (e.flag) return 'flag';
  const type = eventType(e);
  if (type === 'CUSTOM') {
    const name = stringField(e, 'name') ?? '';
    if (name.includes('compaction')) return 'compaction';
    if (name.includes('evict')) return 'eviction';
  }
  if (failed(e)) return 'error';
  if (REPLY_TYPES.has(type) && type !== 'REPLY_START' && type !== 'REPLY_END') return 'confirm';
  if (type.endsWith('_START')) return 'start';
  if (type.endsWith('_END')) return 'end';
  return 'point';
}

/**
 * A short label for an event: its type and what it is about (tool name, model, custom name),
 * preceded by the subagent's name for a subagent's event.
 */
export function marbleLabel(e: RecordedEvent, agentName: string): string {
  const type = eventType(e);
  const about =
    stringField(e, 'name') ??
    (type.startsWith('MODEL_CALL_') ? stringField(e, 'model') : undefined) ??
    (type === 'REPLY_END' ? stringField(e, 'finishReason') : undefined) ??
    (type === 'TOOL_RESULT_END' ? stringField(e, 'status') : undefined);
  const source = stringField(e, 'source');
  const prefix = source !== undefined && source !== agentName ? `${source} · ` : '';
  return `${prefix}${type}${about ? ` ${about}` : ''}${e.flag ? ` (flagged: ${e.flag})` : ''}`;
}

/** The tool call an event belongs to (`toolCallId`), if any. */
export function toolCallIdOf(e: RecordedEvent): string | undefined {
  return stringField(e, 'toolCallId');
}
