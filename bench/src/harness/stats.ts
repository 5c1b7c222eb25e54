/** Order statistics of timing samples. */

/** The q-quantile (0..1) of sorted values, linearly interpolated. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export const sortedCopy = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);

export const median = (values: readonly number[]): number => quantile(sortedCopy(values), 0.5);

export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p10: number;
  readonly p25: number;
  readonly p75: number;
  readonly p90: number;
  readonly mean: number;
  readonly min: number;
}

export function summarize(values: readonly number[]): Summary {
  const s = sortedCopy(values);
  return {
    n: s.length,
    median: quantile(s, 0.5),
    p10: quantile(s, 0.1),
    p25: quantile(s, 0.25),
    p75: quantile(s, 0.75),
    p90: quantile(s, 0.9),
    mean: s.reduce((a, b) => a + b, 0) / (s.length || 1),
    min: s[0] ?? Number.NaN,
  };
}
