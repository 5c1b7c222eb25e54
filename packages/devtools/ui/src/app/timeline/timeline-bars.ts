import type { RecordedEvent, ReplySummary } from '@rxscope/devtools';
import { eventType, stringField } from '../records/event-fields';
import { type LaneId, laneOf, toolCallIdOf } from './lanes';
import type { TimeAxis } from './time-axis';

/** A phase's duration on its lane: from its first to its last event (open while it runs). */
export interface Bar {
  readonly lane: LaneId;
  readonly row: number;
  readonly x1: number;
  readonly x2: number;
  /** Milliseconds from start to end; `undefined` while the phase is still open. */
  readonly durationMs: number | undefined;
  readonly label: string;
  /** The phase has not ended (yet, or ever: a reply that failed mid-call). */
  readonly open: boolean;
  /** What the bar is about: the tool call id, the subagent's reply id. */
  readonly key?: string;
  /** How it ended, when it says (a tool result's status, a reply's finish reason). */
  readonly status?: string;
  /** The events drawn on the bar's row (a tool run's). */
  readonly seqs?: readonly number[];
}

type Draft = Omit<Bar, 'row'>;

function draft(
  lane: LaneId,
  start: RecordedEvent,
  end: RecordedEvent | undefined,
  axis: TimeAxis,
  label: string,
): Draft {
  const last = end ?? start;
  return {
    lane,
    x1: axis.xOf.get(start.seq)!,
    x2: end ? axis.xOf.get(end.seq)! : axis.end,
    durationMs: end ? last.t - start.t : undefined,
    label,
    open: end === undefined,
  };
}

/** Rows for bars that overlap: each bar takes the first row free at its start. */
export function assignRows(drafts: readonly Draft[]): Bar[] {
  const rowEnds: number[] = [];
  return [...drafts]
    .sort((a, b) => a.x1 - b.x1)
    .map((d) => {
      let row = rowEnds.findIndex((end) => end < d.x1);
      if (row < 0) row = rowEnds.length;
      rowEnds[row] = d.x2;
      return { ...d, row };
    });
}

/** Pairs each start event with the next end event (a resumed reply starts again with the same id). */
function pairs(
  events: readonly RecordedEvent[],
  start: string,
  end: string,
): [RecordedEvent, RecordedEvent | undefined][] {
  const out: [RecordedEvent, RecordedEvent | undefined][] = [];
  for (const e of events) {
    const type = eventType(e);
    if (type === start) out.push([e, undefined]);
    else if (type === end) {
      const open = out.findLast((p) => p[1] === undefined);
      if (open) open[1] = e;
    }
  }
  return out;
}

/** The reply's runs: `REPLY_START` to `REPLY_END` (two runs when it was suspended and resumed). */
export function replyBars(events: readonly RecordedEvent[], agent: string, axis: TimeAxis): Bar[] {
  const own = events.filter((e) => laneOf(e, agent) === 'reply');
  return pairs(own, 'REPLY_START', 'REPLY_END').map(([s, e]) => ({
    ...draft('reply', s, e, axis, e ? `reply · ${stringField(e, 'finishReason') ?? 'ended'}` : 'reply · running'),
    ...(e && stringField(e, 'finishReason') ? { status: stringField(e, 'finishReason') } : {}),
    row: 0,
  }));
}

/**
 * The reasoning steps: each run of model-lane and reasoning-lane events between the reply's own
 * and the tools' events (a step assembles the input, calls the model — retries included — and
 * decodes the answer; tools run after it).
 */
export function reasoningBars(
  events: readonly RecordedEvent[],
  lanes: ReadonlyMap<number, LaneId>,
  axis: TimeAxis,
): Bar[] {
  const runs: RecordedEvent[][] = [];
  let run: RecordedEvent[] | undefined;
  for (const e of events) {
    const lane = lanes.get(e.seq);
    if (lane === 'subagent') continue;
    if (lane === 'model' || lane === 'reasoning') {
      if (!run) runs.push((run = []));
      run.push(e);
    } else run = undefined;
  }
  return runs.map((r, i) => ({
    ...draft('reasoning', r[0]!, r.length > 1 ? r.at(-1) : r[0], axis, `step ${i + 1}`),
    row: 0,
  }));
}

/** The model calls: `MODEL_CALL_START` to `MODEL_CALL_END`, labelled with the model. */
export function modelBars(events: readonly RecordedEvent[], agent: string, axis: TimeAxis): Bar[] {
  const own = events.filter((e) => laneOf(e, agent) === 'model');
  return pairs(own, 'MODEL_CALL_START', 'MODEL_CALL_END').map(([s, e]) => ({
    ...draft('model', s, e, axis, stringField(s, 'model') ?? 'model call'),
    row: 0,
  }));
}

/**
 * The tool runs, per `toolCallId`: from a run's first tool-lane event to its `TOOL_RESULT_END`,
 * with the result's status. A call that stopped to ask for a confirmation and ran again after the
 * answer has two runs.
 */
export function toolBars(events: readonly RecordedEvent[], agent: string, axis: TimeAxis): Bar[] {
  const runs: { id: string; list: RecordedEvent[]; end?: RecordedEvent }[] = [];
  const open = new Map<string, (typeof runs)[number]>();
  for (const e of events) {
    const id = laneOf(e, agent) === 'tool' ? toolCallIdOf(e) : undefined;
    if (!id) continue;
    let run = open.get(id);
    if (!run) {
      run = { id, list: [] };
      runs.push(run);
      open.set(id, run);
    }
    run.list.push(e);
    if (eventType(e) === 'TOOL_RESULT_END') {
      run.end = e;
      open.delete(id);
    }
  }
  const drafts = runs.map(({ id, list, end }): Draft => {
    const name = list.map((e) => stringField(e, 'name')).find((n) => n !== undefined) ?? id;
    const status = end ? stringField(end, 'status') : undefined;
    return {
      ...draft('tool', list[0]!, end, axis, name),
      key: id,
      seqs: list.map((e) => e.seq),
      ...(status ? { status } : {}),
    };
  });
  return assignRows(drafts);
}

/**
 * The subagents: each subagent reply (from its summary) from its start to its end; without
 * summaries, each subagent's forwarded events from the first to the last.
 */
export function subagentBars(
  events: readonly RecordedEvent[],
  agent: string,
  children: readonly ReplySummary[],
  axis: TimeAxis,
): Bar[] {
  if (children.length > 0) {
    return assignRows(
      children.map((c) => ({
        lane: 'subagent' as const,
        x1: axis.at(c.startedAt),
        x2: c.endedAt === undefined ? axis.end : Math.max(axis.at(c.endedAt), axis.at(c.startedAt) + 4),
        durationMs: c.endedAt === undefined ? undefined : c.endedAt - c.startedAt,
        label: c.agentName,
        open: c.endedAt === undefined,
        key: c.replyId,
        status: c.status,
      })),
    );
  }
  const bySource = new Map<string, RecordedEvent[]>();
  for (const e of events) {
    const source = stringField(e, 'source');
    if (source !== undefined && source !== agent) bySource.set(source, [...(bySource.get(source) ?? []), e]);
  }
  return assignRows(
    [...bySource].map(([source, list]) => ({ ...draft('subagent', list[0]!, list.at(-1), axis, source), key: source })),
  );
}
