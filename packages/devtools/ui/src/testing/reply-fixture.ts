import type { RecordedEvent, RecordedHook, ReplyRecord, ReplySummary } from '@rxscope/devtools';

/** Builds a reply's recorded events one by one, the way the recorder numbers and stamps them. */
export class ReplyFixture {
  readonly events: RecordedEvent[] = [];
  private seq = 0;
  private now = 1_000_000;

  constructor(
    readonly replyId = 'r1',
    readonly agentName = 'assistant',
  ) {}

  /** Records one event `ms` after the previous one. */
  add(
    type: string,
    fields: Record<string, unknown> = {},
    opts: { hook?: RecordedHook; ms?: number; source?: string; flag?: string; costUsd?: number } = {},
  ): this {
    this.now += opts.ms ?? 1;
    this.events.push({
      seq: ++this.seq,
      replyId: this.replyId,
      t: this.now,
      hook: opts.hook ?? 'onAgent',
      layers: [],
      event: {
        type,
        id: `e${this.seq}`,
        replyId: this.replyId,
        createdAt: Math.floor(this.now),
        source: opts.source ?? this.agentName,
        ...fields,
      },
      ...(opts.flag ? { flag: opts.flag } : {}),
      ...(opts.costUsd !== undefined ? { costUsd: opts.costUsd } : {}),
    });
    return this;
  }

  /** The record as `GET api/replies/:id` answers it. */
  record(extra: Partial<ReplySummary> = {}, rest: Partial<Omit<ReplyRecord, 'summary' | 'events'>> = {}): ReplyRecord {
    const first = this.events[0]?.t ?? this.now;
    return {
      summary: {
        replyId: this.replyId,
        agentName: this.agentName,
        startedAt: first,
        endedAt: this.now,
        status: 'completed',
        eventCount: this.events.length,
        toolCalls: this.events.filter((e) => e.event['type'] === 'TOOL_CALL_START').length,
        flagged: this.events.filter((e) => e.flag).length,
        ...extra,
      },
      events: this.events,
      chain: rest.chain ?? [],
      children: rest.children ?? [],
      ...(rest.harness !== undefined ? { harness: rest.harness } : {}),
    };
  }
}

/**
 * A reply that asks to confirm one of two parallel tool calls, is resumed, has a subagent and a
 * compaction: the situations the timeline must lay out.
 */
export function toolsReply(): ReplyFixture {
  const f = new ReplyFixture();
  f.add('REPLY_START', {})
    .add('CUSTOM', { name: 'compaction_start', value: { messages: 12 } }, { hook: 'onReasoning' })
    .add('CUSTOM', { name: 'compaction_end', value: { messages: 3 } }, { hook: 'onReasoning', ms: 40 })
    .add('MODEL_CALL_START', { model: 'gpt-test' }, { hook: 'onModelCall' })
    .add('TOOL_CALL_START', { blockId: 'b1', toolCallId: 'c1', name: 'lookup_order' }, { hook: 'onModelCall', ms: 30 })
    .add('TOOL_CALL_DELTA', { blockId: 'b1', toolCallId: 'c1', delta: '{"orderId":' }, { hook: 'onModelCall' })
    .add('TOOL_CALL_DELTA', { blockId: 'b1', toolCallId: 'c1', delta: '"A1"}' }, { hook: 'onModelCall' })
    .add('TOOL_CALL_END', { blockId: 'b1', toolCallId: 'c1' }, { hook: 'onModelCall' })
    .add('TOOL_CALL_START', { blockId: 'b2', toolCallId: 'c2', name: 'refund' }, { hook: 'onModelCall' })
    .add('TOOL_CALL_DELTA', { blockId: 'b2', toolCallId: 'c2', delta: '{"amount":5}' }, { hook: 'onModelCall' })
    .add('TOOL_CALL_END', { blockId: 'b2', toolCallId: 'c2' }, { hook: 'onModelCall' })
    .add(
      'MODEL_CALL_END',
      { model: 'gpt-test', usage: { inputTokens: 120, outputTokens: 30 }, finishReason: 'tool_calls' },
      { hook: 'onModelCall' },
    )
    .add('TOOL_RESULT_START', { blockId: 'r1', toolCallId: 'c1', name: 'lookup_order' }, { hook: 'onActing' })
    .add('TOOL_RESULT_START', { blockId: 'r2', toolCallId: 'c2', name: 'refund' }, { hook: 'onActing' })
    .add(
      'TOOL_RESULT_DELTA',
      { blockId: 'r1', delta: { $truncated: true, size: 2_400_000, head: 'line 1' } },
      { hook: 'onActing' },
    )
    .add(
      'TOOL_RESULT_END',
      {
        blockId: 'r1',
        toolCallId: 'c1',
        status: 'success',
        output: [{ type: 'text', text: { $truncated: true, size: 2_400_000, head: 'line 1' } }],
      },
      { hook: 'onActing', ms: 200 },
    )
    .add(
      'TOOL_RESULT_END',
      { blockId: 'r2', toolCallId: 'c2', status: 'interrupted', output: [] },
      { hook: 'onActing' },
    )
    .add('REQUIRE_USER_CONFIRM', {
      toolCalls: [{ id: 'c2', name: 'refund', input: { amount: 5 }, reason: 'refunds ask' }],
    })
    .add('REPLY_END', { finishReason: 'awaiting_confirmation' })
    .add('REPLY_START', {}, { ms: 5000 })
    .add('USER_CONFIRM_RESULT', { results: [{ toolCallId: 'c2', confirmed: true, alwaysAllow: true }] })
    .add('TOOL_RESULT_START', { blockId: 'r3', toolCallId: 'c2', name: 'refund' }, { hook: 'onActing' })
    .add(
      'TOOL_RESULT_END',
      { blockId: 'r3', toolCallId: 'c2', status: 'success', output: [{ type: 'text', text: 'refunded 5' }] },
      { hook: 'onActing', ms: 10 },
    )
    .add('TEXT_BLOCK_START', { blockId: 's1' }, { source: 'researcher', hook: 'onActing' })
    .add('TEXT_BLOCK_END', { blockId: 's1' }, { source: 'researcher', hook: 'onActing', ms: 20 })
    .add('MODEL_CALL_START', { model: 'gpt-test' }, { hook: 'onModelCall' })
    .add('TEXT_BLOCK_START', { blockId: 't1' }, { hook: 'onModelCall' })
    .add('TEXT_BLOCK_DELTA', { blockId: 't1', delta: 'Done.' }, { hook: 'onModelCall' })
    .add('TEXT_BLOCK_END', { blockId: 't1' }, { hook: 'onModelCall' })
    .add(
      'MODEL_CALL_END',
      { model: 'gpt-test', usage: { inputTokens: 200, outputTokens: 5 }, finishReason: 'stop' },
      { hook: 'onModelCall', ms: 50 },
    )
    .add('REPLY_END', { finishReason: 'completed' });
  return f;
}
