import { checkOptionKeys, optionKeys } from '@rxscope/core';
import type { EvalRun } from './run-eval.js';

/**
 * The least a scorer must reach for a run to pass the gate: a mean score, a pass rate, or both.
 *
 * @example
 * ```ts
 * const t: Threshold = { passRate: 0.9 };
 * ```
 */
export interface Threshold {
  readonly mean?: number;
  readonly passRate?: number;
}

/**
 * The thresholds a run is held to, per scorer name.
 *
 * @example
 * ```ts
 * const gate: Thresholds = { 'answer:exact': { passRate: 0.9 }, judge: { mean: 0.8 } };
 * ```
 */
export type Thresholds = Readonly<Record<string, Threshold>>;

/**
 * What a run misses of its thresholds, one line per miss (empty: it passes). A threshold for a
 * scorer the run does not have is a miss too (a renamed scorer must not pass the gate silently),
 * and so is a dataset line that could not be read.
 *
 * @example
 * ```ts
 * const misses = checkThresholds(run, { 'answer:exact': { passRate: 0.9 } });
 * if (misses.length) { console.error(misses.join('\n')); process.exitCode = 1; }
 * ```
 */
export function checkThresholds(run: EvalRun, thresholds: Thresholds): string[] {
  const misses: string[] = [];
  for (const [scorer, threshold] of Object.entries(thresholds)) {
    checkOptionKeys(`thresholds["${scorer}"]`, threshold, optionKeys<Threshold>({ mean: true, passRate: true }));
    const s = run.summary.scorers.find((x) => x.scorer === scorer);
    if (!s) {
      misses.push(
        `${scorer}: no such scorer in the run (it has ${run.summary.scorers.map((x) => x.scorer).join(', ')})`,
      );
      continue;
    }
    if (threshold.mean !== undefined && s.mean < threshold.mean)
      misses.push(`${scorer}: mean ${s.mean.toFixed(3)} < ${threshold.mean}`);
    if (threshold.passRate !== undefined && s.passRate < threshold.passRate)
      misses.push(`${scorer}: pass rate ${s.passRate.toFixed(3)} < ${threshold.passRate}`);
  }
  if (run.datasetErrors.length) misses.push(`${run.datasetErrors.length} dataset line(s) could not be read`);
  return misses;
}
