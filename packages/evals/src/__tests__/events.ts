// Hand-made reply streams for the scorer specs: well-formed ones and broken ones.
import type { AgentEvent } from '@rxscope/core';

let n = 0;
/** One event of agent `a` (or `source`), with ids and a time. */
export function ev(type: string, fields: Record<string, unknown> = {}, at = 0, source = 'a'): AgentEvent {
  return { id: `e${++n}`, replyId: 'r1', createdAt: 1_000 + at, source, type, ...fields } as unknown as AgentEvent;
}

/** A tool call's events: the call (its JSON arguments in two deltas) and its result. */
export function toolCall(id: string, name: string, args: string, status = 'success', output = 'ok'): AgentEvent[] {
  const half = Math.floor(args.length / 2);
  return [
    ev('TOOL_CALL_START', { blockId: `b${id}`, toolCallId: id, name }),
    ev('TOOL_CALL_DELTA', { blockId: `b${id}`, toolCallId: id, delta: args.slice(0, half) }),
    ev('TOOL_CALL_DELTA', { blockId: `b${id}`, toolCallId: id, delta: args.slice(half) }),
    ev('TOOL_CALL_END', { blockId: `b${id}`, toolCallId: id }),
    ev('TOOL_RESULT_START', { blockId: `r${id}`, toolCallId: id, name }),
    ev('TOOL_RESULT_END', { blockId: `r${id}`, toolCallId: id, status, output: [{ type: 'text', text: output }] }),
  ];
}

/** A text block. */
export function text(blockId: string, ...deltas: string[]): AgentEvent[] {
  return [
    ev('TEXT_BLOCK_START', { blockId }),
    ...deltas.map((delta) => ev('TEXT_BLOCK_DELTA', { blockId, delta })),
    ev('TEXT_BLOCK_END', { blockId }),
  ];
}

const usage = (i: number, o: number) => ({ inputTokens: i, outputTokens: o });

/**
 * A well-formed reply: a model call that reads `sum.js` then edits it, a second that answers
 * `answer`; 120 + 30 tokens; 2.5 s from start to end.
 */
export function reply(answer = 'Fixed: sum.js now returns a + b.'): AgentEvent[] {
  return [
    ev('REPLY_START', {}, 0),
    ev('MODEL_CALL_START', { model: 'm' }),
    ...text('t0', 'Let me look.'),
    ...toolCall('c1', 'read_file', '{"path":"sum.js"}'),
    ...toolCall('c2', 'edit_file', '{"path":"sum.js","old":"a - b","new":"a + b"}'),
    ev('MODEL_CALL_END', { model: 'm', usage: usage(50, 10), finishReason: 'tool_calls' }),
    ev('MODEL_CALL_START', { model: 'm' }),
    ...text('t1', ...answer.split(/(?<= )/)),
    ev('MODEL_CALL_END', { model: 'm', usage: usage(70, 20), finishReason: 'stop' }),
    ev('REPLY_END', { finishReason: 'completed', usage: usage(120, 30) }, 2_500),
  ];
}
