import type { Score } from '../scorers/scorer.js';

/**
 * One scorer over a run: how many scores, their mean, the share that passed, how many were errors,
 * their standard deviation, and (when cases were repeated) the 95 % confidence interval of the mean.
 *
 * @example
 * ```ts
 * const line = (s: ScorerSummary) => `${s.scorer}: ${s.mean.toFixed(2)} (${Math.round(s.passRate * 100)} % pass)`;
 * ```
 */
export interface ScorerSummary {
  readonly scorer: string;
  readonly n: number;
  readonly mean: number;
  readonly passRate: number;
  readonly errors: number;
  readonly sd: number;
  readonly ci?: { readonly low: number; readonly high: number };
}

/**
 * The summary of a run: one entry per scorer, in the order the scorers were given.
 *
 * @example
 * ```ts
 * const judge = summary.scorers.find((s) => s.scorer === 'judge');
 * ```
 */
export interface EvalSummary {
  readonly cases: number;
  readonly repeat: number;
  /** Replies that failed or could not run (a cassette to re-record, an agent that could not be built). */
  readonly caseErrors: number;
  readonly scorers: readonly ScorerSummary[];
}

// Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom; 1.96 beyond.
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/**
 * The 95 % quantile of Student's t with `df` degrees of freedom (1.96 from 31 on).
 *
 * @example
 * ```ts
 * tQuantile95(4); // 2.776
 * ```
 */
export function tQuantile95(df: number): number {
  return df >= 1 && df <= T95.length ? T95[df - 1]! : 1.96;
}

/**
 * Summarises scores per scorer (see {@link ScorerSummary}); `repeat` above 1 adds confidence
 * intervals.
 *
 * @example
 * ```ts
 * const summary = summarize(results.flatMap((r) => r.scores), { scorers: ['answer:exact'], cases: 12, repeat: 3, caseErrors: 0 });
 * ```
 */
export function summarize(
  scores: readonly Score[],
  how: {
    readonly scorers: readonly string[];
    readonly cases: number;
    readonly repeat: number;
    readonly caseErrors: number;
  },
): EvalSummary {
  return {
    cases: how.cases,
    repeat: how.repeat,
    caseErrors: how.caseErrors,
    scorers: how.scorers.map((scorer): ScorerSummary => {
      const own = scores.filter((s) => s.scorer === scorer);
      const n = own.length;
      const mean = n ? own.reduce((a, s) => a + s.score, 0) / n : 0;
      const sd = n > 1 ? Math.sqrt(own.reduce((a, s) => a + (s.score - mean) ** 2, 0) / (n - 1)) : 0;
      const half = n > 1 ? (tQuantile95(n - 1) * sd) / Math.sqrt(n) : 0;
      return {
        scorer,
        n,
        mean,
        passRate: n ? own.filter((s) => s.pass).length / n : 0,
        errors: own.filter((s) => s.error !== undefined).length,
        sd,
        ...(how.repeat > 1 && n > 1 ? { ci: { low: Math.max(0, mean - half), high: Math.min(1, mean + half) } } : {}),
      };
    }),
  };
}
