import type { ReplySummary } from '@rxscope/devtools';
import { ReplyFixture, toolsReply } from '../../testing/reply-fixture';
import { layoutTimeline } from './timeline-layout';

const typeOf = (m: { event: { event: Record<string, unknown> } }) => m.event.event['type'];

describe('layoutTimeline', () => {
  const record = toolsReply().record();
  const layout = layoutTimeline(record, { width: 900, gap: 18 });
  const on = (lane: string) => layout.marbles.filter((m) => m.lane === lane);

  it('draws one lane per phase, in order, and every event but the streamed pieces as a marble', () => {
    expect(layout.lanes.map((l) => l.id)).toEqual(['reply', 'reasoning', 'model', 'tool', 'subagent']);
    const deltas = record.events.filter((e) => String(e.event['type']).endsWith('_DELTA'));
    expect(layout.marbles).toHaveLength(record.events.length - deltas.length);
    expect(layout.lanes.find((l) => l.id === 'model')!.deltas).toBe(4);
    expect(layout.lanes.find((l) => l.id === 'tool')!.deltas).toBe(1);
  });

  it('puts each event on the lane of its phase', () => {
    expect(on('reply').map(typeOf)).toEqual([
      'REPLY_START',
      'REQUIRE_USER_CONFIRM',
      'REPLY_END',
      'REPLY_START',
      'USER_CONFIRM_RESULT',
      'REPLY_END',
    ]);
    expect(on('reasoning').map(typeOf)).toEqual(['CUSTOM', 'CUSTOM']);
    expect(on('model').map(typeOf)).toContain('TOOL_CALL_START');
    expect(on('tool').map(typeOf)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_START',
      'TOOL_RESULT_END',
      'TOOL_RESULT_END',
      'TOOL_RESULT_START',
      'TOOL_RESULT_END',
    ]);
    // The subagent's events (another source) are on the subagent lane, labelled with its name.
    expect(on('subagent').map((m) => m.label)).toEqual([
      'researcher · TEXT_BLOCK_START',
      'researcher · TEXT_BLOCK_END',
    ]);
  });

  it('keeps the order of events and never draws two marbles closer than the gap', () => {
    const xs = layout.marbles.map((m) => m.x);
    for (let i = 1; i < xs.length; i++) expect(xs[i]! - xs[i - 1]!).toBeGreaterThanOrEqual(18 - 1e-9);
    // A long wait (5 s before the resume) takes more room than a millisecond step.
    const resume = layout.marbles.findIndex((m, i) => i > 0 && typeOf(m) === 'REPLY_START');
    expect(xs[resume]! - xs[resume - 1]!).toBeGreaterThan(100);
    expect(layout.width).toBeGreaterThanOrEqual(xs.at(-1)! + 16);
  });

  it('fills the width it is given when the events fit, and grows past it when they do not', () => {
    const wide = layoutTimeline(record, { width: 2000, gap: 18, pad: 16 });
    expect(wide.width).toBeCloseTo(2000, 6);
    expect(wide.marbles[0]!.x).toBe(16);
    expect(wide.marbles.at(-1)!.x).toBeCloseTo(2000 - 16, 6);
    const narrow = layoutTimeline(record, { width: 100, gap: 18, pad: 16 });
    expect(narrow.width).toBeCloseTo(16 + 18 * (narrow.marbles.length - 1) + 16, 6);
  });

  it('draws a bar per reply run, reasoning step, model call, tool call and subagent, with durations', () => {
    const bars = (lane: string) => layout.bars.filter((b) => b.lane === lane);
    expect(bars('reply').map((b) => b.status)).toEqual(['awaiting_confirmation', 'completed']);
    expect(bars('model').map((b) => b.label)).toEqual(['gpt-test', 'gpt-test']);
    expect(bars('model')[0]!.durationMs).toBeCloseTo(37, 5);
    expect(bars('reasoning').map((b) => b.label)).toEqual(['step 1', 'step 2']);
    expect(bars('subagent').map((b) => b.label)).toEqual(['researcher']);
    const tools = bars('tool');
    // The refund stopped to ask for a confirmation and ran again after the answer: two runs.
    expect(tools.map((b) => [b.key, b.status])).toEqual([
      ['c1', 'success'],
      ['c2', 'interrupted'],
      ['c2', 'success'],
    ]);
    // The first two ran at once: the second has a row of its own, and its marbles sit on it.
    expect(tools.map((b) => b.row)).toEqual([0, 1, 0]);
    const c2 = on('tool').filter((m) => m.event.event['toolCallId'] === 'c2');
    expect(c2.map((m) => m.row)).toEqual([1, 1, 0, 0]);
    expect(layout.lanes.find((l) => l.id === 'tool')!.rows).toBe(2);
  });

  it('marks compactions across the lanes, and failures and confirmations as their own kinds', () => {
    expect(layout.markers.map((m) => [m.kind, m.label])).toEqual([
      ['compaction', 'CUSTOM compaction_start'],
      ['compaction', 'CUSTOM compaction_end'],
    ]);
    expect(
      on('reply')
        .filter((m) => m.kind === 'confirm')
        .map(typeOf),
    ).toEqual(['REQUIRE_USER_CONFIRM', 'USER_CONFIRM_RESULT']);
    const failed = new ReplyFixture()
      .add('REPLY_START')
      .add('CUSTOM', { name: 'tool_result_evicted', value: {} }, { hook: 'onReasoning' })
      .add('TOOL_RESULT_END', { toolCallId: 'x', status: 'error', output: [] }, { hook: 'onActing' })
      .add('MODEL_CALL_START', { model: 'm' }, { hook: 'onModelCall', flag: 'not JSON: a function' })
      .add('REPLY_END', { finishReason: 'error', error: { code: 'model', message: 'down' } })
      .record();
    expect(layoutTimeline(failed).marbles.map((m) => m.kind)).toEqual(['start', 'eviction', 'error', 'flag', 'error']);
  });

  it('draws subagent replies from their summaries, and a running reply with open bars', () => {
    const f = new ReplyFixture()
      .add('REPLY_START')
      .add('MODEL_CALL_START', { model: 'm' }, { hook: 'onModelCall', ms: 100 });
    const child: ReplySummary = {
      replyId: 'sub1',
      agentName: 'researcher',
      parentReplyId: 'r1',
      startedAt: f.events[0]!.t + 10,
      endedAt: f.events[0]!.t + 60,
      status: 'completed',
      eventCount: 4,
      toolCalls: 0,
      flagged: 0,
    };
    const layout = layoutTimeline(f.record({ status: 'running', endedAt: undefined }), { children: [child] });
    const sub = layout.bars.find((b) => b.lane === 'subagent')!;
    expect([sub.label, sub.key, sub.durationMs]).toEqual(['researcher', 'sub1', 50]);
    const [start, call] = layout.marbles;
    expect(sub.x1).toBeGreaterThan(start!.x);
    expect(sub.x2).toBeLessThan(call!.x);
    expect(layout.bars.filter((b) => b.lane === 'reply' || b.lane === 'model').every((b) => b.open)).toBe(true);
  });

  it('lays out an empty record as empty lanes', () => {
    const layout = layoutTimeline(new ReplyFixture().record());
    expect(layout.marbles).toEqual([]);
    expect(layout.lanes).toHaveLength(5);
    expect(layout.height).toBe(5 * 28);
  });
});
