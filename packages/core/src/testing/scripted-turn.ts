import type { ModelEvent, Usage } from '../event/events.js';
import { newId } from '../util/id.js';

/** One scripted model response. */
export interface ScriptedTurn {
  /** Text, as one string or as the chunks to stream. */
  readonly text?: string | readonly string[];
  /** Reasoning text, streamed before the answer. */
  readonly thinking?: string | readonly string[];
  /** Tool calls; `input` is serialised to JSON unless raw `arguments` are given. */
  readonly toolCalls?: readonly { readonly name: string; readonly input?: unknown; readonly arguments?: string; readonly id?: string }[];
  readonly usage?: Partial<Usage>;
  /** Default: `tool_calls` when the turn has tool calls, else `stop`. */
  readonly finishReason?: string;
  /** Fail the call with this error after the content above was streamed. */
  readonly error?: Error;
}

const chunksOf = (v: string | readonly string[] | undefined): readonly string[] =>
  v === undefined ? [] : typeof v === 'string' ? [v] : v;

/**
 * The model events of a scripted turn, in streaming order (without the error, if any).
 *
 * @example
 * ```ts
 * scriptedTurnEvents({ text: ['Hel', 'lo'] }, 'test-model');
 * ```
 */
export function scriptedTurnEvents(turn: ScriptedTurn, modelName: string): ModelEvent[] {
  const events: ModelEvent[] = [];
  const thinking = chunksOf(turn.thinking);
  if (thinking.length) {
    const blockId = newId('blk');
    events.push({ type: 'THINKING_BLOCK_START', blockId });
    for (const delta of thinking) events.push({ type: 'THINKING_BLOCK_DELTA', blockId, delta });
    events.push({ type: 'THINKING_BLOCK_END', blockId });
  }
  const text = chunksOf(turn.text);
  if (text.length) {
    const blockId = newId('blk');
    events.push({ type: 'TEXT_BLOCK_START', blockId });
    for (const delta of text) events.push({ type: 'TEXT_BLOCK_DELTA', blockId, delta });
    events.push({ type: 'TEXT_BLOCK_END', blockId });
  }
  for (const call of turn.toolCalls ?? []) {
    const blockId = newId('blk');
    events.push({ type: 'TOOL_CALL_START', blockId, toolCallId: call.id ?? newId('call'), name: call.name });
    events.push({ type: 'TOOL_CALL_DELTA', blockId, delta: call.arguments ?? JSON.stringify(call.input ?? {}) });
    events.push({ type: 'TOOL_CALL_END', blockId });
  }
  if (turn.error) return events;
  const outputTokens = turn.usage?.outputTokens ?? text.join('').length + thinking.join('').length;
  events.push({
    type: 'MODEL_CALL_END',
    model: modelName,
    finishReason: turn.finishReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop'),
    usage: { inputTokens: turn.usage?.inputTokens ?? 10, outputTokens, ...turn.usage },
  });
  return events;
}
