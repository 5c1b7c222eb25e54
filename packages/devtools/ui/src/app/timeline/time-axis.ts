import type { RecordedEvent } from '@rxscope/devtools';

/** Where each event sits on the time axis, and how to place any other instant on it. */
export interface TimeAxis {
  readonly xOf: ReadonlyMap<number, number>;
  /** The x of an instant: interpolated between the drawn events, clamped at the ends. */
  at(t: number): number;
  readonly end: number;
}

/**
 * The time axis: every step between two events is at least `gap` (events of one millisecond
 * would hide each other), and the width left over is shared in proportion to the time between
 * them, so the order is always visible and a long wait still looks long.
 */
export function timeAxis(events: readonly RecordedEvent[], width: number, gap: number, pad: number): TimeAxis {
  const t0 = events[0]?.t ?? 0;
  const t1 = events.at(-1)?.t ?? t0;
  const free = Math.max(0, width - 2 * pad - gap * Math.max(0, events.length - 1));
  const pxPerMs = free / Math.max(1, t1 - t0);
  const xOf = new Map<number, number>();
  const points: [number, number][] = [];
  let prev: RecordedEvent | undefined;
  let x = pad;
  for (const e of events) {
    if (prev) x += gap + Math.max(0, e.t - prev.t) * pxPerMs;
    xOf.set(e.seq, x);
    points.push([e.t, x]);
    prev = e;
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
  return { xOf, at, end: Math.max(width, x + pad) };
}
