import type { ModelEvent, Usage } from '../event/events.js';
import { newId } from '../util/id.js';

/**
 * A tool call a scripted turn makes. The same shape scripts `ScriptedChatModel` and the
 * OpenAI-compatible test server (`@rxscope/core/testing/node`).
 *
 * @example
 * ```ts
 * const call: ScriptedToolCall = { name: 'get_weather', input: { city: 'Paris' } };
 * const broken: ScriptedToolCall = { name: 'get_weather', arguments: '{"city": "Par' }; // raw text, invalid JSON on purpose
 * ```
 */
export interface ScriptedToolCall {
  readonly name: string;
  /** The arguments, sent as their JSON text. */
  readonly input?: unknown;
  /** The raw JSON text of the arguments instead of `input` (to script invalid JSON). */
  readonly arguments?: string;
  /** Default: a fresh `call_...` id. */
  readonly id?: string;
}

/**
 * One scripted model response, in the words of rxscope's events and messages: `text`,
 * `thinking`, `toolCalls` of `{name, input}`, `usage` as a {@link Usage}. `ScriptedChatModel`
 * plays it in memory; the test server (`startOpenAITestServer` of `@rxscope/core/testing/node`)
 * takes the same turns (plus HTTP-only fields such as `fault`) and sends them over the wire.
 *
 * @example
 * ```ts
 * const turns: ScriptedTurn[] = [
 *   { thinking: 'The user wants the weather.', toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }] },
 *   { text: ['It is 21 °C ', 'in Paris.'], usage: { inputTokens: 120, outputTokens: 9 } },
 * ];
 * const model = new ScriptedChatModel(turns); // in memory
 * const server = await startOpenAITestServer({ script: turns }); // over HTTP
 * ```
 */
export interface ScriptedTurn {
  /** Text, as one string or as the chunks to stream. */
  readonly text?: string | readonly string[];
  /** Reasoning text, streamed before the answer. */
  readonly thinking?: string | readonly string[];
  /** Tool calls; `input` is serialised to JSON unless raw `arguments` are given. */
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Reported usage. Default: rough counts. */
  readonly usage?: Partial<Usage>;
  /** Default: `tool_calls` when the turn has tool calls, else `stop`. */
  readonly finishReason?: string;
  /** Fail the call with this error after the content above was streamed (`ScriptedChatModel` only; the test server has `fault`). */
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
