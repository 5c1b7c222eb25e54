import { EvalError } from '../eval-error.js';
import { isList } from '../is-list.js';
import type { RunComparison } from './compare.js';
import type { EvalRun } from './run-eval.js';
import type { ScorerSummary } from './summary.js';

/** Lays rows out as a plain-text table, columns padded to their widest cell. */
function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const pct = (v: number) => `${Math.round(v * 100)}%`;
const mean = (s: ScorerSummary | undefined) =>
  s ? `${s.mean.toFixed(2)}${s.ci ? ` [${s.ci.low.toFixed(2)}, ${s.ci.high.toFixed(2)}]` : ''}` : '-';

/**
 * A run's summary as a text table: a row per scorer with its mean (and confidence interval),
 * pass rate and errors; then the failed replies and the unreadable dataset lines.
 *
 * @example
 * ```ts
 * console.log(formatSummary(run));
 * ```
 */
export function formatSummary(run: EvalRun): string {
  const s = run.summary;
  const head = `${run.name}: ${s.cases} case(s)${s.repeat > 1 ? ` × ${s.repeat}` : ''}`;
  const rows = [
    ['scorer', 'mean', 'pass', 'errors'],
    ...s.scorers.map((x) => [x.scorer, mean(x), pct(x.passRate), String(x.errors)]),
  ];
  const failed = run.results
    .filter((r) => r.error)
    .map((r) => `  ${r.caseId}${s.repeat > 1 ? ` (run ${r.run})` : ''}: ${r.error}`);
  const lines = run.datasetErrors.map((e) => `  line ${e.line}: ${e.reason}`);
  return [
    head,
    table(rows),
    ...(failed.length ? ['failed replies:', ...failed] : []),
    ...(lines.length ? ['unreadable dataset lines:', ...lines] : []),
  ].join('\n');
}

/**
 * Two runs side by side, a row per scorer: each mean and pass rate, the difference, and `*` where
 * it is beyond noise; then the cases whose pass share changed.
 *
 * @example
 * ```ts
 * console.log(formatComparison(compareRuns(a, b)));
 * ```
 */
export function formatComparison(cmp: RunComparison): string {
  const rows = [
    ['scorer', cmp.a, 'pass', cmp.b, 'pass', 'diff', ''],
    ...cmp.rows.map((r) => [
      r.scorer,
      mean(r.a),
      r.a ? pct(r.a.passRate) : '-',
      mean(r.b),
      r.b ? pct(r.b.passRate) : '-',
      r.diff === undefined ? '-' : `${r.diff >= 0 ? '+' : ''}${r.diff.toFixed(2)}`,
      r.significant ? '*' : '',
    ]),
  ];
  const changed = cmp.changedCases.map((c) => `  ${c.caseId} ${c.scorer}: ${pct(c.a)} → ${pct(c.b)}`);
  return [
    table(rows),
    '* beyond noise (|diff| > 1.96 standard errors)',
    ...(changed.length ? ['cases that changed:', ...changed] : []),
  ].join('\n');
}

/**
 * A results file read back (as the CLI writes it), checked enough to compare: throws an
 * {@link EvalError} `results_invalid` naming what is missing.
 *
 * @example
 * ```ts
 * const baseline = parseEvalRun(JSON.parse(readFileSync('baseline.json', 'utf8')), 'baseline.json');
 * ```
 */
export function parseEvalRun(value: unknown, where = 'results'): EvalRun {
  const v = value as Partial<EvalRun> | null;
  const bad = (what: string) =>
    new EvalError('results_invalid', `${where}: not eval results (${what}); write them with rxscope-eval --out.`);
  if (!v || typeof v !== 'object') throw bad('not a JSON object');
  if (typeof v.name !== 'string') throw bad('no "name"');
  if (!Array.isArray(v.results)) throw bad('no "results" array');
  if (!v.summary || !isList(v.summary.scorers)) throw bad('no "summary.scorers"');
  for (const s of v.summary.scorers) {
    if (
      typeof s?.scorer !== 'string' ||
      typeof s.mean !== 'number' ||
      typeof s.n !== 'number' ||
      typeof s.sd !== 'number'
    )
      throw bad('a scorer summary without scorer, n, mean and sd');
  }
  return { datasetErrors: [], ...v } as EvalRun;
}
