import { createEvent } from '../../event/create.js';
import type { AgentEvent, AgentEventType, EventFields } from '../../event/events.js';
import { assertReplyGrammar } from '../../testing/index.js';
import { InMemorySessionEventBus } from './in-memory-session-event-bus.js';
import { isRecoverReply } from '../../agent/journal-sync.js';
import { RecoveredReplySplice } from './recovered-reply-splice.js';

const origin = { replyId: 'r1', source: 'shop' };
const ev = <T extends AgentEventType>(type: T, fields: EventFields[T], from = origin) =>
  createEvent(type, fields, from);
const usage = { inputTokens: 1, outputTokens: 1 };
const text = (blockId: string, delta: string): AgentEvent[] => [
  ev('TEXT_BLOCK_START', { blockId }),
  ev('TEXT_BLOCK_DELTA', { blockId, delta }),
  ev('TEXT_BLOCK_END', { blockId }),
];
const call = (blockId: string, toolCallId: string, name: string): AgentEvent[] => [
  ev('TOOL_CALL_START', { blockId, toolCallId, name }),
  ev('TOOL_CALL_END', { blockId, toolCallId }),
];
const recovered = ev('CUSTOM', { name: 'reply_recovered', value: { fromStep: 1 } });
const spliced = (dead: AgentEvent[], attempt: AgentEvent[]) => {
  const splice = new RecoveredReplySplice(dead, 's1');
  return [...dead, ...attempt.flatMap((e) => splice.next(e))];
};

describe('RecoveredReplySplice', () => {
  it('closes the model call cut mid-stream and drops the second REPLY_START', () => {
    const dead = [
      ev('REPLY_START', { sessionId: 's1' }),
      ev('MODEL_CALL_START', { model: 'm' }),
      ev('TEXT_BLOCK_START', { blockId: 'b1' }),
      ev('TEXT_BLOCK_DELTA', { blockId: 'b1', delta: 'Look' }),
    ];
    const attempt = [
      ev('REPLY_START', { sessionId: 's1' }),
      recovered,
      ev('MODEL_CALL_START', { model: 'm' }),
      ...text('b2', 'Done.'),
      ev('MODEL_CALL_END', { model: 'm', usage, finishReason: 'stop' }),
      ev('REPLY_END', { finishReason: 'completed' }),
    ];
    const all = spliced(dead, attempt);
    expect(assertReplyGrammar(all).finishReason).toBe('completed');
    expect(all.filter((e) => e.type === 'REPLY_START')).toHaveLength(1);
    const cut = all.slice(dead.length, dead.length + 2);
    expect(cut.map((e) => e.type)).toEqual(['TEXT_BLOCK_END', 'MODEL_CALL_END']);
    expect(cut[1]).toMatchObject({ finishReason: 'interrupted', replyId: 'r1', source: 'shop' });
  });

  it("continues a tool result block left open with the recovered attempt's result", () => {
    const dead = [
      ev('REPLY_START', {}),
      ev('MODEL_CALL_START', { model: 'm' }),
      ...call('c1', 'call_a', 'charge'),
      ev('MODEL_CALL_END', { model: 'm', usage, finishReason: 'tool_calls' }),
      ev('TOOL_RESULT_START', { blockId: 'r-dead', toolCallId: 'call_a', name: 'charge' }),
    ];
    const attempt = [
      ev('REPLY_START', {}),
      recovered,
      ev('TOOL_RESULT_START', { blockId: 'r-new', toolCallId: 'call_a', name: 'charge' }),
      ev('TOOL_RESULT_DELTA', { blockId: 'r-new', delta: 'unknown' }),
      ev('TOOL_RESULT_END', { blockId: 'r-new', toolCallId: 'call_a', status: 'interrupted', output: [] }),
      ev('REPLY_END', { finishReason: 'completed' }),
    ];
    const all = spliced(dead, attempt);
    assertReplyGrammar(all);
    const tail = all.slice(dead.length);
    expect(tail.map((e) => e.type)).toEqual(['CUSTOM', 'TOOL_RESULT_DELTA', 'TOOL_RESULT_END', 'REPLY_END']);
    expect(tail[2]).toMatchObject({ blockId: 'r-dead', status: 'interrupted' });
  });

  it('answers the calls of a model call made again, and closes a result nobody continued', () => {
    const dead = [
      ev('REPLY_START', {}),
      ev('MODEL_CALL_START', { model: 'm' }),
      ...call('c1', 'call_old', 'lookup'),
      ev('MODEL_CALL_END', { model: 'm', usage, finishReason: 'tool_calls' }),
      ev('TOOL_RESULT_START', { blockId: 'r1', toolCallId: 'call_old', name: 'lookup' }),
      ev('MODEL_CALL_START', { model: 'm' }),
      ...call('c2', 'call_gone', 'lookup'),
    ];
    const attempt = [
      ev('REPLY_START', {}),
      recovered,
      ev('MODEL_CALL_START', { model: 'm' }),
      ...text('t1', 'Done.'),
      ev('MODEL_CALL_END', { model: 'm', usage, finishReason: 'stop' }),
      ev('REPLY_END', { finishReason: 'completed' }),
    ];
    const all = spliced(dead, attempt);
    assertReplyGrammar(all);
    const ends = all.filter((e) => e.type === 'TOOL_RESULT_END');
    expect(ends.map((e) => [e.toolCallId, e.status])).toEqual([
      ['call_old', 'interrupted'],
      ['call_gone', 'interrupted'],
    ]);
    expect(all.at(-1)!.type).toBe('REPLY_END');
  });

  it('ends the subagent replies the dead attempt was running', () => {
    const sub = { replyId: 'r-sub', source: 'helper' };
    const dead = [ev('REPLY_START', {}), ev('REPLY_START', {}, sub), ev('TEXT_BLOCK_START', { blockId: 'sb' }, sub)];
    const all = spliced(dead, [ev('REPLY_START', {}), recovered, ev('REPLY_END', { finishReason: 'completed' })]);
    assertReplyGrammar(all);
    expect(all.filter((e) => e.source === 'helper').map((e) => e.type)).toEqual([
      'REPLY_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_END',
      'REPLY_END',
    ]);
  });

  it('passes everything through without a reply left open, or with another one open', () => {
    const attempt = [ev('REPLY_START', {}), recovered, ev('REPLY_END', { finishReason: 'completed' })];
    expect(spliced([], attempt)).toEqual(attempt);
    const other = [ev('REPLY_START', {}, { replyId: 'r0', source: 'shop' })];
    expect(spliced(other, attempt).slice(1)).toEqual(attempt);
  });

  it('reads the open reply from the bus', async () => {
    const bus = new InMemorySessionEventBus();
    for (const e of [...text('x', 'before'), ev('REPLY_START', {}), ev('TEXT_BLOCK_START', { blockId: 'b' })])
      await bus.append('s1', e);
    expect((await bus.openReplyEvents('s1')).map((e) => e.type)).toEqual(['REPLY_START', 'TEXT_BLOCK_START']);
    const splice = await RecoveredReplySplice.of(bus, 's1');
    expect(splice.next(ev('REPLY_START', {})).map((e) => e.type)).toEqual(['TEXT_BLOCK_END']);
    expect(isRecoverReply({ type: 'RECOVER_REPLY' })).toBe(true);
    expect(isRecoverReply('RECOVER_REPLY')).toBe(false);
  });
});
