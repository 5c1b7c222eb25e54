import type { EvalRun } from './run-eval.js';
import type { ScorerSummary } from './summary.js';

/**
 * One scorer of two runs side by side: the means, their difference (b − a), and whether the
 * difference is beyond noise.
 *
 * @example
 * ```ts
 * const marked = comparison.rows.filter((r) => r.significant).map((r) => r.scorer);
 * ```
 */
export interface ComparisonRow {
  readonly scorer: string;
  readonly a?: ScorerSummary;
  readonly b?: ScorerSummary;
  readonly diff?: number;
  /** The difference exceeds what noise explains (see {@link compareRuns}). */
  readonly significant: boolean;
}

/**
 * Two runs compared: a row per scorer of either run, and the cases whose pass/fail changed.
 *
 * @example
 * ```ts
 * console.log(formatComparison(compareRuns(baseline, candidate)));
 * ```
 */
export interface RunComparison {
  readonly a: string;
  readonly b: string;
  readonly rows: readonly ComparisonRow[];
  /** `caseId`, scorer, and what passed in each run (share of repeats). */
  readonly changedCases: readonly {
    readonly caseId: string;
    readonly scorer: string;
    readonly a: number;
    readonly b: number;
  }[];
}

/** The pass share of a (case, scorer) over its repeats. */
function passShares(run: EvalRun): Map<string, number> {
  const counts = new Map<string, { pass: number; n: number }>();
  for (const r of run.results) {
    for (const s of r.scores) {
      const key = `${r.caseId}\u0000${s.scorer}`;
      const c = counts.get(key) ?? { pass: 0, n: 0 };
      c.pass += s.pass ? 1 : 0;
      c.n += 1;
      counts.set(key, c);
    }
  }
  return new Map([...counts].map(([k, c]) => [k, c.pass / c.n]));
}

/**
 * Compares two runs scorer by scorer. A difference of means is marked beyond noise when it exceeds
 * 1.96 standard errors of the difference (Welch: sd²/n of each run) — with one run of
 * deterministic 0/1 scores on a dozen cases, that is a change of several cases; repeat the runs
 * to narrow it. Also lists the cases whose pass share changed.
 *
 * @example
 * ```ts
 * const cmp = compareRuns(JSON.parse(readFileSync('coding.json', 'utf8')), JSON.parse(readFileSync('research.json', 'utf8')));
 * ```
 */
export function compareRuns(a: EvalRun, b: EvalRun): RunComparison {
  const names = [...new Set([...a.summary.scorers.map((s) => s.scorer), ...b.summary.scorers.map((s) => s.scorer)])];
  const rows = names.map((scorer): ComparisonRow => {
    const sa = a.summary.scorers.find((s) => s.scorer === scorer);
    const sb = b.summary.scorers.find((s) => s.scorer === scorer);
    if (!sa || !sb || sa.n === 0 || sb.n === 0) {
      return { scorer, ...(sa ? { a: sa } : {}), ...(sb ? { b: sb } : {}), significant: false };
    }
    const diff = sb.mean - sa.mean;
    // A run of one case has no spread of its own: take the largest a 0..1 score can have.
    const variance = (s: ScorerSummary) => (s.n > 1 ? s.sd ** 2 : 0.25) / s.n;
    const se = Math.sqrt(variance(sa) + variance(sb));
    return { scorer, a: sa, b: sb, diff, significant: diff !== 0 && Math.abs(diff) > 1.96 * se };
  });
  const pa = passShares(a);
  const pb = passShares(b);
  const changedCases = [...pa]
    .filter(([k, v]) => pb.has(k) && pb.get(k) !== v)
    .map(([k, v]) => {
      const [caseId, scorer] = k.split('\u0000') as [string, string];
      return { caseId, scorer, a: v, b: pb.get(k)! };
    });
  return { a: a.name, b: b.name, rows, changedCases };
}
