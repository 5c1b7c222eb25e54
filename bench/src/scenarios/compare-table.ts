import type { Table, TimedResultView } from '../harness/scenario.js';
import { quantile } from '../harness/stats.js';

const ms = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(3)}`;

/**
 * With `--compare <commit>`: each rxscope contender of this tree against the same contender of
 * the compared commit (`<name>@<sha>`), from the per-round medians (measured moments apart, so
 * the machine's load mostly cancels out) and the CPU time per operation. Negative: this tree is
 * faster. Undefined without compared contenders.
 *
 * @example
 * ```ts
 * analyze: (r) => ({ checks, tables: [comparedTable(r)].filter((t) => t !== undefined) })
 * ```
 */
export function comparedTable(r: TimedResultView): Table | undefined {
  const rows: string[][] = [];
  for (const other of r.contenders) {
    const at = other.name.lastIndexOf('@');
    if (at <= 0) continue;
    const mine = r.contenders.find((c) => c.name === other.name.slice(0, at));
    if (!mine) continue;
    const diffs = mine.roundMedians.map((m, i) => m - other.roundMedians[i]!).sort((a, b) => a - b);
    const median = quantile(diffs, 0.5);
    rows.push([
      `${mine.name} vs ${other.name}`,
      ms(median),
      `${ms(quantile(diffs, 0.25))} – ${ms(quantile(diffs, 0.75))}`,
      `${((mine.ms.median / other.ms.median - 1) * 100).toFixed(1)}%`,
      ms(mine.cpuMs.median - other.cpuMs.median),
      `${((mine.cpuMs.median / other.cpuMs.median - 1) * 100).toFixed(1)}%`,
    ]);
  }
  if (!rows.length) return undefined;
  return {
    title: 'This tree against the compared commit (negative: this tree is faster)',
    columns: [
      'contenders',
      'paired difference per op (median, ms)',
      'p25–p75 (ms)',
      'medians',
      'CPU per op (ms)',
      'CPU',
    ],
    rows,
  };
}
