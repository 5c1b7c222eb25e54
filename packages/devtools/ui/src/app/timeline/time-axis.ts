import type { RecordedEvent } from '@rxscope/devtools';

/** Where each event sits on the time axis, and how to place any other instant on it. */
export interface TimeAxis {
  readonly xOf: ReadonlyMap<number, number>;
  /** The x of an instant: interpolated between the drawn events, clamped at the ends. */
  at(t: number): number;
  readonly end: number;
}

/**
 * The time axis: proportional to time, except that two events are never closer than `gap`
 * (events of one millisecond would hide each other), so the order of events is always visible.
 */
export function timeAxis(events: readonly RecordedEvent[], width: number, gap: number, pad: number): TimeAxis {
  const t0 = events[0]?.t ?? 0;
  const t1 = events.at(-1)?.t ?? t0;
  const pxPerMs = (width - 2 * pad) / Math.max(1, t1 - t0);
  const xOf = new Map<number, number>();
  const points: [number, number][] = [];
  let prev = -Infinity;
  for (const e of events) {
    const x = Math.max(pad + (e.t - t0) * pxPerMs, prev + gap);
    xOf.set(e.seq, x);
    points.push([e.t, x]);
    prev = x;
  }
  const at = (t: number): number => {
    if (points.length === 0) return pad;
    if (t <= points[0]![0]) return points[0]![1];
    for (let i = 1; i < points.length; i++) {
      const [ta, xa] = points[i - 1]!;
      const [tb, xb] = points[i]!;
      if (t <= tb) return tb === ta ? xb : xa + ((t - ta) / (tb - ta)) * (xb - xa);
    }
    return points.at(-1)![1];
  };
  return { xOf, at, end: Math.max(width, prev + pad) };
}
