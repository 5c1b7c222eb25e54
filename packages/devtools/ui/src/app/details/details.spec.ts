import type { ReplySummary } from '@rxscope/devtools';
import { ReplyFixture, toolsReply } from '../../testing/reply-fixture';
import { confirmationRows } from './confirmation-rows';
import { replyTree } from './reply-tree';
import { toolCallRows } from './tool-call-rows';
import { usageView } from './usage-rows';

describe('tool-call rows', () => {
  it('lists each call once with its streamed input, its last result and its time', () => {
    const record = toolsReply().record();
    const rows = toolCallRows(record);
    expect(rows.map((r) => [r.name, r.status])).toEqual([
      ['lookup_order', 'success'],
      ['refund', 'success'], // interrupted for the confirmation, then run after the answer
    ]);
    expect(rows[0]!.input).toEqual({ text: '{"orderId":"A1"}' });
    expect(rows[1]!.output).toEqual({ text: 'refunded 5' });
    expect(rows[0]!.durationMs).toBeCloseTo(210, 5); // from the model's TOOL_CALL_START to the TOOL_RESULT_END
  });

  it('shows a huge output as its head and its original size', () => {
    const [lookup] = toolCallRows(toolsReply().record());
    expect(lookup!.output).toEqual({ text: 'line 1…', truncatedSize: 2_400_000 });
  });

  it('takes the input from the confirmation when the arguments were not streamed, and leaves a subagent’s calls out', () => {
    const record = new ReplyFixture()
      .add('TOOL_CALL_START', { toolCallId: 'c1', name: 'refund' }, { hook: 'onModelCall' })
      .add('TOOL_CALL_START', { toolCallId: 's1', name: 'search' }, { hook: 'onModelCall', source: 'researcher' })
      .add('REQUIRE_USER_CONFIRM', { toolCalls: [{ id: 'c1', name: 'refund', input: { amount: 80 } }] })
      .record();
    const rows = toolCallRows(record);
    expect(rows.map((r) => [r.name, r.status, r.durationMs])).toEqual([['refund', 'running', undefined]]);
    expect(JSON.parse(rows[0]!.input.text)).toEqual({ amount: 80 });
  });
});

describe('confirmation rows', () => {
  it('matches each asked call with its answer', () => {
    const rows = confirmationRows(toolsReply().record());
    expect(rows).toEqual([
      expect.objectContaining({
        toolCallId: 'c2',
        name: 'refund',
        reason: 'refunds ask',
        answer: 'confirmed',
        alwaysAllow: true,
      }),
    ]);
    expect(rows[0]!.answeredAt! - rows[0]!.askedAt).toBeGreaterThan(5000);
  });

  it('says which calls still wait, and a rejection with its reason and an edited input', () => {
    const record = new ReplyFixture()
      .add('REQUIRE_USER_CONFIRM', {
        toolCalls: [
          { id: 'a', name: 'delete', input: { path: '/' } },
          { id: 'b', name: 'write', input: { path: 'x' } },
          { id: 'c', name: 'send', input: { to: 'all' } },
        ],
      })
      .add('USER_CONFIRM_RESULT', {
        results: [
          { toolCallId: 'a', confirmed: false, reason: 'too broad' },
          { toolCallId: 'b', confirmed: true, input: { path: 'y' } },
        ],
      })
      .record();
    const rows = confirmationRows(record);
    expect(rows.map((r) => [r.toolCallId, r.answer, r.answerReason])).toEqual([
      ['a', 'rejected', 'too broad'],
      ['b', 'confirmed', undefined],
      ['c', 'waiting', undefined],
    ]);
    expect(JSON.parse(rows[1]!.editedInput!.text)).toEqual({ path: 'y' });
  });
});

describe('usage', () => {
  it('gives each model call its tokens and duration, and the reply the sum', () => {
    const usage = usageView(toolsReply().record());
    expect(usage.calls.map((c) => [c.model, c.inputTokens, c.outputTokens, c.finishReason])).toEqual([
      ['gpt-test', 120, 30, 'tool_calls'],
      ['gpt-test', 200, 5, 'stop'],
    ]);
    expect(usage.calls[1]!.durationMs).toBeCloseTo(53, 5);
    expect([usage.inputTokens, usage.outputTokens, usage.costUsd]).toEqual([320, 35, undefined]);
  });

  it('takes the totals and the cost the recorder summed, and a call’s cost from the event', () => {
    const f = new ReplyFixture().add('MODEL_CALL_END', {
      model: 'm',
      usage: { inputTokens: 1, outputTokens: 2 },
      finishReason: 'stop',
      metadata: { costUsd: 0.25 },
    });
    const usage = usageView(f.record({ usage: { inputTokens: 10, outputTokens: 20 }, costUsd: 1.5 }));
    expect(usage.calls[0]!.costUsd).toBe(0.25);
    expect([usage.inputTokens, usage.outputTokens, usage.costUsd]).toEqual([10, 20, 1.5]);
  });

  it('shows the cost the recorder priced for each call, and sums them when the summary has none', () => {
    const end = (input: number) => ({
      model: 'm',
      usage: { inputTokens: input, outputTokens: 1 },
      finishReason: 'stop',
    });
    const f = new ReplyFixture()
      .add('MODEL_CALL_END', end(1), { hook: 'onModelCall', costUsd: 0.5 })
      .add('MODEL_CALL_END', end(2), { hook: 'onModelCall', costUsd: 0.25 });
    const usage = usageView(f.record());
    expect(usage.calls.map((c) => c.costUsd)).toEqual([0.5, 0.25]);
    expect(usage.costUsd).toBe(0.75);
  });
});

describe('reply tree', () => {
  const summary = (replyId: string, startedAt: number, extra: Partial<ReplySummary> = {}): ReplySummary => ({
    replyId,
    agentName: 'assistant',
    startedAt,
    status: 'completed',
    eventCount: 1,
    toolCalls: 0,
    flagged: 0,
    sessionId: 's1',
    ...extra,
  });

  it('groups replies by session, newest first, with subagent replies under their parent', () => {
    const groups = replyTree([
      summary('old', 1),
      summary('new', 5),
      summary('sub', 6, { parentReplyId: 'new', agentName: 'auditor', sessionId: 's1-auditor' }),
      summary('subsub', 7, { parentReplyId: 'sub' }),
      summary('other', 3, { sessionId: 's2' }),
      summary('orphan', 2, { parentReplyId: 'gone' }),
    ]);
    // A reply whose parent is not listed (any more) stays visible at the top level.
    expect(groups.map((g) => [g.sessionId, g.replies.map((r) => r.summary.replyId)])).toEqual([
      ['s1', ['new', 'orphan', 'old']],
      ['s2', ['other']],
    ]);
    const sub = groups[0]!.replies[0]!.children;
    expect(sub.map((c) => [c.summary.replyId, c.depth])).toEqual([['sub', 1]]);
    expect(sub[0]!.children.map((c) => [c.summary.replyId, c.depth])).toEqual([['subsub', 2]]);
  });
});
