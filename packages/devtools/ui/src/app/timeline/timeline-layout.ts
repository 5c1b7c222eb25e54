import type { RecordedEvent, ReplyRecord, ReplySummary } from '@rxscope/devtools';
import { isDelta } from '../records/event-fields';
import { timeAxis } from './time-axis';
import { type Bar, replyBars, reasoningBars, modelBars, toolBars, subagentBars } from './timeline-bars';
import { LANES, type LaneId, type MarbleKind, laneOf, marbleKind, marbleLabel } from './lanes';

/** One event drawn on its lane. */
export interface Marble {
  readonly seq: number;
  readonly lane: LaneId;
  /** The row inside the lane (parallel tool calls and subagents get a row each). */
  readonly row: number;
  readonly x: number;
  readonly kind: MarbleKind;
  readonly label: string;
  readonly event: RecordedEvent;
}

/** A lane as drawn: where it starts and how many rows it holds. */
export interface LaneLayout {
  readonly id: LaneId;
  readonly label: string;
  readonly y: number;
  readonly rows: number;
  readonly height: number;
  /** Streamed pieces (`*_DELTA` events) of this lane, counted but not drawn one by one. */
  readonly deltas: number;
}

/** A compaction or eviction, marked across all lanes. */
export interface Marker {
  readonly seq: number;
  readonly x: number;
  readonly kind: 'compaction' | 'eviction';
  readonly label: string;
}

/** Everything the timeline draws, in pixels. */
export interface TimelineLayout {
  readonly lanes: readonly LaneLayout[];
  readonly marbles: readonly Marble[];
  readonly bars: readonly Bar[];
  readonly markers: readonly Marker[];
  readonly width: number;
  readonly height: number;
}

/** Sizes of the drawing; every field has a default. */
export interface LayoutOptions {
  /** The width the timeline should fill; it grows when the events need more room. Default 900. */
  readonly width?: number;
  /** The least distance between two marbles, so events of the same millisecond stay apart. Default 18. */
  readonly gap?: number;
  /** Room before the first and after the last marble. Default 16. */
  readonly pad?: number;
  readonly rowHeight?: number;
  /** The summaries of the reply's subagent replies (drawn as bars on the subagent lane). */
  readonly children?: readonly ReplySummary[];
}

/**
 * Lays out a reply's timeline: one lane per phase, each drawn event a marble on its lane (and
 * row), each phase's duration a bar, compactions and evictions marked across the lanes.
 *
 * @example
 * ```ts
 * const layout = layoutTimeline(record, { width: 900, children });
 * layout.marbles.filter((m) => m.lane === 'tool').length; // tool-result events of the reply
 * ```
 */
export function layoutTimeline(record: ReplyRecord, options: LayoutOptions = {}): TimelineLayout {
  const { width = 900, gap = 18, pad = 16, rowHeight = 28 } = options;
  const agent = record.summary.agentName;
  const events = [...record.events].sort((a, b) => a.seq - b.seq);
  const drawn = events.filter((e) => !isDelta(e));
  const axis = timeAxis(drawn, width, gap, pad);
  const lanes = new Map(drawn.map((e) => [e.seq, laneOf(e, agent)] as const));

  const bars = [
    ...replyBars(drawn, agent, axis),
    ...reasoningBars(drawn, lanes, axis),
    ...modelBars(drawn, agent, axis),
    ...toolBars(drawn, agent, axis),
    ...subagentBars(drawn, agent, options.children ?? [], axis),
  ];
  const rows = new Map(bars.flatMap((b) => (b.seqs ?? []).map((seq) => [seq, b.row] as const)));
  const marbles: Marble[] = drawn.map((e) => {
    return {
      seq: e.seq,
      lane: lanes.get(e.seq)!,
      row: rows.get(e.seq) ?? 0,
      x: axis.xOf.get(e.seq)!,
      kind: marbleKind(e),
      label: marbleLabel(e, agent),
      event: e,
    };
  });
  const markers: Marker[] = marbles
    .filter((m) => m.kind === 'compaction' || m.kind === 'eviction')
    .map((m) => ({ seq: m.seq, x: m.x, kind: m.kind as Marker['kind'], label: m.label }));

  let y = 0;
  const laneLayouts: LaneLayout[] = LANES.map(({ id, label }) => {
    const rows = 1 + Math.max(0, ...bars.filter((b) => b.lane === id).map((b) => b.row));
    const deltas = events.filter((e) => isDelta(e) && laneOf(e, agent) === id).length;
    const lane = { id, label, y, rows, height: rows * rowHeight, deltas };
    y += lane.height;
    return lane;
  });
  return { lanes: laneLayouts, marbles, bars, markers, width: axis.end, height: y };
}
