import { checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import type { ExpectedToolCall } from '../dataset/eval-case.js';
import { matchesCall } from './argument-matcher.js';
import type { ToolCallRecord } from './reply-sample.js';
import type { Scorer, ScoreVerdict } from './scorer.js';

/**
 * How {@link trajectory} compares the calls made with the calls expected:
 * - `exact`: the same calls in the same order, nothing else;
 * - `in-order`: the expected calls appear in this order (other calls may come between);
 * - `any-order`: every expected call appears, in any order;
 * - `subset`: every call made is one of the expected ones (the agent did nothing else).
 *
 * @example
 * ```ts
 * const mode: TrajectoryMode = 'in-order';
 * ```
 */
export type TrajectoryMode = 'exact' | 'in-order' | 'any-order' | 'subset';

/**
 * Options of {@link trajectory}.
 *
 * @example
 * ```ts
 * const options: TrajectoryOptions = { mode: 'any-order', calls: [{ name: 'read_file', input: { path: 'a.ts' } }] };
 * ```
 */
export interface TrajectoryOptions {
  /** Default `in-order`. */
  readonly mode?: TrajectoryMode;
  /** The expected calls; default: the case's `expected.tools`. */
  readonly calls?: readonly ExpectedToolCall[];
  /** The score's name. Default `trajectory:<mode>`. */
  readonly name?: string;
}

const KEYS = optionKeys<TrajectoryOptions>({ mode: true, calls: true, name: true });
const MODES: readonly TrajectoryMode[] = ['exact', 'in-order', 'any-order', 'subset'];

const show = (c: ExpectedToolCall | ToolCallRecord) => c.name;

/** Scores `made` against `expected` in `mode`: the share matched, and which one failed first. */
export function compareTrajectory(
  mode: TrajectoryMode,
  expected: readonly ExpectedToolCall[],
  made: readonly ToolCallRecord[],
): ScoreVerdict {
  const names = `made [${made.map(show).join(', ')}], expected [${expected.map(show).join(', ')}]`;
  if (mode === 'exact') {
    const i = Array.from({ length: Math.max(expected.length, made.length) }).findIndex(
      (_, k) => !expected[k] || !made[k] || !matchesCall(expected[k], made[k]),
    );
    return i < 0
      ? { score: 1, reason: `the ${made.length} expected call(s) in order` }
      : { score: 0, reason: `call #${i + 1} differs: ${names}` };
  }
  if (mode === 'subset') {
    const extra = made.filter((c) => !expected.some((e) => matchesCall(e, c)));
    return {
      score: made.length === 0 ? 1 : (made.length - extra.length) / made.length,
      reason: extra.length ? `not expected: ${extra.map(show).join(', ')}` : 'every call made was expected',
    };
  }
  const used = new Set<number>();
  let from = 0;
  const missing: ExpectedToolCall[] = [];
  for (const e of expected) {
    const start = mode === 'in-order' ? from : 0;
    const k = made.findIndex((c, j) => j >= start && !used.has(j) && matchesCall(e, c));
    if (k < 0) missing.push(e);
    else {
      used.add(k);
      from = k + 1;
    }
  }
  const score = expected.length === 0 ? 1 : (expected.length - missing.length) / expected.length;
  return {
    score,
    reason: missing.length
      ? `missing ${mode === 'in-order' ? 'in order ' : ''}${missing.map(show).join(', ')}: ${names}`
      : `every expected call made${mode === 'in-order' ? ' in order' : ''}`,
  };
}

/**
 * Scores the reply's tool calls (name and arguments, see `ArgumentMatcher`) against the expected
 * ones: the share of expected calls matched (`exact`: 1 or 0; `subset`: the share of calls made
 * that were expected). Passes at 1.
 *
 * @example
 * ```ts
 * const scorers = [trajectory({ mode: 'exact', calls: [{ name: 'read_file', input: { path: 'sum.js' } }, { name: 'edit_file' }] })];
 * ```
 */
export function trajectory(options: TrajectoryOptions = {}): Scorer {
  checkOptionKeys('trajectory', options, KEYS);
  const mode = options.mode ?? 'in-order';
  if (!MODES.includes(mode)) {
    throw new OptionsError(
      'invalid_option',
      'trajectory.mode',
      `trajectory: mode must be one of ${MODES.join(', ')}; got ${JSON.stringify(mode)}.`,
    );
  }
  const name = options.name ?? `trajectory:${mode}`;
  return {
    name,
    score: (sample, evalCase) => {
      const expected = options.calls ?? evalCase.expected?.tools;
      if (!expected) throw new Error(`case "${evalCase.id}" has no expected.tools and the scorer no calls`);
      return compareTrajectory(mode, expected, sample.toolCalls);
    },
  };
}
