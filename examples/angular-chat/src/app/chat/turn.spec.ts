import { type AgentEvent, type AgentEventType, type EventFields, createEvent } from '@rxscope/core';
import { type Turn, applyEvent, cancelTurn, newTurn, textOf } from './turn';

const origin = { replyId: 'r1', source: 'assistant' };
const ev = <T extends AgentEventType>(type: T, fields: EventFields[T]): AgentEvent => createEvent(type, fields, origin);
const fold = (events: AgentEvent[], turn: Turn = newTurn('t1', 'hi')) => events.reduce(applyEvent, turn);

describe('turn view model', () => {
  it('joins the spoken reply from its audio data blocks, between the text blocks, and ignores other data', () => {
    const turn = fold([
      ev('REPLY_START', {}),
      ev('TEXT_BLOCK_START', { blockId: 'b1' }),
      ev('TEXT_BLOCK_DELTA', { blockId: 'b1', delta: 'Hello.' }),
      ev('TEXT_BLOCK_END', { blockId: 'b1' }),
      ev('DATA_BLOCK_START', { blockId: 'a1', mediaType: 'audio/wav' }),
      ev('DATA_BLOCK_DELTA', { blockId: 'a1', delta: 'UklG' }),
      ev('DATA_BLOCK_START', { blockId: 'img', mediaType: 'image/png' }),
      ev('DATA_BLOCK_END', { blockId: 'img' }),
    ]);
    expect(turn.parts.map((p) => p.kind)).toEqual(['text', 'audio']);
    expect(turn.parts[1]).toEqual({ kind: 'audio', blockId: 'a1', mediaType: 'audio/wav', data: 'UklG', done: false });
    const done = fold(
      [ev('DATA_BLOCK_DELTA', { blockId: 'a1', delta: 'RiQA' }), ev('DATA_BLOCK_END', { blockId: 'a1' })],
      turn,
    );
    expect(done.parts[1]).toEqual({
      kind: 'audio',
      blockId: 'a1',
      mediaType: 'audio/wav',
      data: 'UklGRiQA',
      done: true,
    });
    expect(textOf(done)).toBe('Hello.');
  });

  it('shows text as it streams and sums usage over model calls', () => {
    const partial = fold([
      ev('REPLY_START', {}),
      ev('MODEL_CALL_START', { model: 'm' }),
      ev('TEXT_BLOCK_START', { blockId: 'b1' }),
      ev('TEXT_BLOCK_DELTA', { blockId: 'b1', delta: 'Hel' }),
    ]);
    expect(partial.status).toBe('streaming');
    expect(textOf(partial)).toBe('Hel');

    const done = fold(
      [
        ev('TEXT_BLOCK_DELTA', { blockId: 'b1', delta: 'lo' }),
        ev('TEXT_BLOCK_END', { blockId: 'b1' }),
        ev('MODEL_CALL_END', { model: 'm', usage: { inputTokens: 10, outputTokens: 2 }, finishReason: 'stop' }),
        ev('MODEL_CALL_END', {
          model: 'm',
          usage: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 4 },
          finishReason: 'stop',
        }),
        ev('REPLY_END', { finishReason: 'completed' }),
      ],
      partial,
    );
    expect(textOf(done)).toBe('Hello');
    expect(done.usage).toEqual({ inputTokens: 15, outputTokens: 3, cacheReadTokens: 4 });
    expect(done.modelCalls).toBe(2);
    expect(done.status).toBe('completed');
  });

  it('follows a tool call through confirmation to its result, across the resumed stream', () => {
    const waiting = fold([
      ev('REPLY_START', {}),
      ev('TOOL_CALL_START', { blockId: 'c1', toolCallId: 'call_1', name: 'refund' }),
      ev('TOOL_CALL_DELTA', { blockId: 'c1', toolCallId: 'call_1', delta: '{"amount":' }),
      ev('TOOL_CALL_DELTA', { blockId: 'c1', toolCallId: 'call_1', delta: '80}' }),
      ev('TOOL_CALL_END', { blockId: 'c1', toolCallId: 'call_1' }),
      ev('REQUIRE_USER_CONFIRM', { toolCalls: [{ id: 'call_1', name: 'refund', input: { amount: 80 } }] }),
      ev('REPLY_END', { finishReason: 'awaiting_confirmation' }),
    ]);
    expect(waiting.status).toBe('awaiting_confirmation');
    expect(waiting.pending.map((c) => c.id)).toEqual(['call_1']);
    expect(waiting.parts[0]).toMatchObject({
      kind: 'tool',
      call: { args: '{"amount":80}', status: 'awaiting_confirmation' },
    });

    const resumed = fold(
      [
        ev('REPLY_START', {}),
        ev('USER_CONFIRM_RESULT', { results: [{ toolCallId: 'call_1', confirmed: true }] }),
        ev('TOOL_RESULT_START', { blockId: 'r1', toolCallId: 'call_1', name: 'refund' }),
        ev('TOOL_PROGRESS', { blockId: 'r1', toolCallId: 'call_1', message: 'contacting the bank...' }),
        ev('TOOL_RESULT_DELTA', { blockId: 'r1', delta: 'Refun' }),
      ],
      waiting,
    );
    expect(resumed.pending).toEqual([]);
    // Progress is shown beside the output, never joined into it.
    expect(resumed.parts[0]).toMatchObject({
      kind: 'tool',
      call: { status: 'running', output: 'Refun', progress: 'contacting the bank...' },
    });

    const done = fold(
      [
        ev('TOOL_RESULT_END', {
          blockId: 'r1',
          toolCallId: 'call_1',
          status: 'success',
          output: [{ type: 'text', text: 'Refunded.' }],
        }),
      ],
      resumed,
    );
    expect(done.parts[0]).toMatchObject({ kind: 'tool', call: { status: 'success', output: 'Refunded.' } });
    expect(done.parts[0]!.kind === 'tool' && 'progress' in done.parts[0]!.call).toBe(false);
  });

  it('marks a rejected call denied at once', () => {
    const turn = fold([
      ev('REPLY_START', {}),
      ev('TOOL_CALL_START', { blockId: 'c1', toolCallId: 'call_1', name: 'refund' }),
      ev('TOOL_CALL_END', { blockId: 'c1', toolCallId: 'call_1' }),
      ev('REQUIRE_USER_CONFIRM', { toolCalls: [{ id: 'call_1', name: 'refund', input: {} }] }),
      ev('USER_CONFIRM_RESULT', { results: [{ toolCallId: 'call_1', confirmed: false }] }),
    ]);
    expect(turn.parts[0]).toMatchObject({ kind: 'tool', call: { status: 'denied' } });
  });

  it('shows the task list as the agent rewrites it, and drops entries it cannot read', () => {
    const first = fold([
      ev('REPLY_START', {}),
      ev('CUSTOM', {
        name: 'todos_updated',
        value: {
          todos: [
            { content: 'Pack', status: 'in_progress' },
            { content: 'Move', status: 'pending' },
          ],
        },
      }),
    ]);
    expect(first.todos).toEqual([
      { content: 'Pack', status: 'in_progress' },
      { content: 'Move', status: 'pending' },
    ]);
    const second = fold(
      [
        ev('CUSTOM', {
          name: 'todos_updated',
          value: {
            todos: [
              { content: 'Pack', status: 'completed' },
              { content: 42, status: 'pending' },
            ],
          },
        }),
      ],
      first,
    );
    expect(second.todos).toEqual([{ content: 'Pack', status: 'completed' }]);
    // Other custom events leave the turn as it is.
    expect(applyEvent(second, ev('CUSTOM', { name: 'something_else', value: {} }))).toBe(second);
  });

  it('ignores events of another reply once the reply id is known', () => {
    const turn = fold([ev('REPLY_START', {})]);
    const other = createEvent('TEXT_BLOCK_START', { blockId: 'x' }, { replyId: 'r2', source: 'assistant' });
    expect(applyEvent(turn, other)).toBe(turn);
  });

  it('cancelling ends the turn and shows open calls as interrupted', () => {
    const turn = cancelTurn(
      fold([ev('REPLY_START', {}), ev('TOOL_CALL_START', { blockId: 'c1', toolCallId: 'call_1', name: 'slow' })]),
    );
    expect(turn.status).toBe('cancelled');
    expect(turn.parts[0]).toMatchObject({ kind: 'tool', call: { status: 'interrupted' } });
    expect(cancelTurn(turn)).toBe(turn);
  });

  it('keeps the error message of a failed reply', () => {
    const turn = fold([
      ev('REPLY_START', {}),
      ev('REPLY_END', { finishReason: 'error', error: { name: 'ModelError', message: 'HTTP 500' } }),
    ]);
    expect(turn).toMatchObject({ status: 'error', error: 'HTTP 500' });
  });
});
