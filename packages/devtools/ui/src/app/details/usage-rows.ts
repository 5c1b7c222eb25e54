import type { RecordedEvent, ReplyRecord } from '@rxscope/devtools';
import { eventType, field, numberField, objectField, stringField } from '../records/event-fields';

/** Token usage (and cost, when the recorder priced it) of one model call. */
export interface ModelCallUsage {
  readonly seq: number;
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number | undefined;
  readonly reasoningTokens: number | undefined;
  readonly costUsd: number | undefined;
  readonly durationMs: number | undefined;
  readonly finishReason: string | undefined;
  /** The subagent that made the call, when it is not the reply's own agent. */
  readonly source: string | undefined;
}

/** The reply's usage: per model call, and the reply's totals. */
export interface UsageView {
  readonly calls: readonly ModelCallUsage[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number | undefined;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** A model call's cost: the recorder's price of it, else a `costUsd` field on the event or in its metadata. */
function costOf(e: RecordedEvent): number | undefined {
  return num(e.costUsd) ?? numberField(e, 'costUsd') ?? num(field(objectField(e, 'metadata'), 'costUsd'));
}

/**
 * Usage per model call (`MODEL_CALL_END`, with its duration from the matching start) and the
 * reply's totals: the summary's when the recorder gave them, else the sum of the calls.
 *
 * @example
 * ```ts
 * usageView(record).calls.map((c) => c.inputTokens + c.outputTokens);
 * ```
 */
export function usageView(record: ReplyRecord): UsageView {
  const agent = record.summary.agentName;
  const starts = new Map<string, RecordedEvent[]>();
  const calls: ModelCallUsage[] = [];
  for (const e of record.events) {
    const type = eventType(e);
    const source = stringField(e, 'source');
    const key = source ?? agent;
    if (type === 'MODEL_CALL_START') starts.set(key, [...(starts.get(key) ?? []), e]);
    if (type !== 'MODEL_CALL_END') continue;
    const start = starts.get(key)?.shift();
    const usage = objectField(e, 'usage');
    calls.push({
      seq: e.seq,
      model: stringField(e, 'model') ?? '?',
      inputTokens: num(field(usage, 'inputTokens')) ?? 0,
      outputTokens: num(field(usage, 'outputTokens')) ?? 0,
      cacheReadTokens: num(field(usage, 'cacheReadTokens')),
      reasoningTokens: num(field(usage, 'reasoningTokens')),
      costUsd: costOf(e),
      durationMs: start ? e.t - start.t : undefined,
      finishReason: stringField(e, 'finishReason'),
      source: source !== undefined && source !== agent ? source : undefined,
    });
  }
  const summed = calls.reduce((s, c) => ({ i: s.i + c.inputTokens, o: s.o + c.outputTokens }), { i: 0, o: 0 });
  const priced = calls.filter((c) => c.costUsd !== undefined);
  return {
    calls,
    inputTokens: record.summary.usage?.inputTokens ?? summed.i,
    outputTokens: record.summary.usage?.outputTokens ?? summed.o,
    costUsd: record.summary.costUsd ?? (priced.length ? priced.reduce((s, c) => s + c.costUsd!, 0) : undefined),
  };
}
