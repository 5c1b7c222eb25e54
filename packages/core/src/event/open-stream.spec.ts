import { assertReplyGrammar } from '../testing/grammar.js';
import { createReplyReducer } from './reducer.js';
import { createEvent } from './create.js';
import type { AgentEvent, AgentEventType, EventFields } from './events.js';
import { closeBlock, closeOpenStream, OpenStream } from './open-stream.js';

const origin = { replyId: 'r1', source: 'support' };
const ctx = { event: <T extends AgentEventType>(type: T, fields: EventFields[T]) => createEvent(type, fields, origin) };

/** A reply cut in the middle of everything: a tool result streaming, a second model call with a text and a tool call open. */
function cutStream(): AgentEvent[] {
  return [
    ctx.event('REPLY_START', {}),
    ctx.event('MODEL_CALL_START', { model: 'm' }),
    ctx.event('TOOL_CALL_START', { blockId: 'c1', toolCallId: 'call-1', name: 'lookup' }),
    ctx.event('TOOL_CALL_END', { blockId: 'c1', toolCallId: 'call-1' }),
    ctx.event('TOOL_CALL_START', { blockId: 'c2', toolCallId: 'call-2', name: 'refund' }),
    ctx.event('TOOL_CALL_END', { blockId: 'c2', toolCallId: 'call-2' }),
    ctx.event('MODEL_CALL_END', { model: 'm', usage: { inputTokens: 3, outputTokens: 2 }, finishReason: 'tool_calls' }),
    ctx.event('TOOL_RESULT_START', { blockId: 'r1', toolCallId: 'call-1', name: 'lookup' }),
    ctx.event('TOOL_RESULT_DELTA', { blockId: 'r1', delta: 'partial' }),
  ];
}

describe('closeOpenStream', () => {
  it('ends a cut reply so that it obeys the stream grammar: result cut short, second call answered', () => {
    const events = cutStream();
    const open = new OpenStream();
    for (const e of events) open.apply(e);
    const closing = closeOpenStream(ctx, open, { status: 'interrupted', why: 'the user stopped it' });
    const end = ctx.event('REPLY_END', { finishReason: 'interrupted' });
    expect(assertReplyGrammar([...events, ...closing, end]).finishReason).toBe('interrupted');
    const results = closing.filter((e) => e.type === 'TOOL_RESULT_END');
    expect(results.map((e) => [e.toolCallId, e.status, e.output])).toEqual([
      ['call-1', 'interrupted', [{ type: 'text', text: 'Tool call did not finish: the user stopped it.' }]],
      ['call-2', 'interrupted', [{ type: 'text', text: 'Tool call was not executed: the user stopped it.' }]],
    ]);
    // Applied as produced: nothing is left open, closing again adds nothing.
    expect(closeOpenStream(ctx, open, { status: 'interrupted', why: 'again' })).toEqual([]);
  });

  it('closes blocks innermost first and ends the model call with the error, leaving calls to the loop when asked', () => {
    const open = new OpenStream();
    const events = [
      ctx.event('MODEL_CALL_START', { model: 'gpt' }),
      ctx.event('THINKING_BLOCK_START', { blockId: 't1' }),
      ctx.event('TOOL_CALL_START', { blockId: 'c1', toolCallId: 'call-1', name: 'lookup' }),
    ];
    for (const e of events) open.apply(e);
    const error = { name: 'ModelError', message: 'timed out', code: 'timeout' };
    const closing = closeOpenStream(ctx, open, { status: 'error', why: 'timed out', error, answerCalls: false });
    expect(closing.map((e) => e.type)).toEqual(['TOOL_CALL_END', 'THINKING_BLOCK_END', 'MODEL_CALL_END']);
    expect(closing[2]).toMatchObject({ model: 'gpt', finishReason: 'error', error });
    expect(open.unansweredCalls()).toEqual([{ id: 'call-1', name: 'lookup' }]);
  });

  it('ends a reply reducer the same way, and the stored message then has every call answered', () => {
    const reducer = createReplyReducer();
    const events = cutStream();
    for (const e of events) reducer.apply(e);
    const closing = closeOpenStream(ctx, reducer, { status: 'error', why: 'the reply failed' });
    expect(reducer.openBlocks()).toEqual([]);
    expect(reducer.unansweredCalls()).toEqual([]);
    expect(closing.filter((e) => e.type === 'TOOL_RESULT_END').map((e) => e.status)).toEqual(['error', 'interrupted']);
  });
});

describe('closeBlock', () => {
  it('ends one block from its start event', () => {
    const start = ctx.event('TOOL_RESULT_START', { blockId: 'b', toolCallId: 'call-9', name: 'x' });
    expect(closeBlock(ctx, start, { status: 'error', why: 'middleware m failed' })).toMatchObject({
      type: 'TOOL_RESULT_END',
      blockId: 'b',
      toolCallId: 'call-9',
      status: 'error',
      output: [{ type: 'text', text: 'Tool call did not finish: middleware m failed.' }],
    });
    expect(closeBlock(ctx, { blockId: 'd', kind: 'data' }, { status: 'error', why: 'x' }).type).toBe('DATA_BLOCK_END');
  });
});
