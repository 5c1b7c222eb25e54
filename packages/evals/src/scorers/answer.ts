import { checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import type { EvalCase } from '../dataset/eval-case.js';
import type { Scorer } from './scorer.js';

const excerpt = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

function expectedAnswer(evalCase: EvalCase, scorer: string): string {
  const answer = evalCase.expected?.answer;
  if (answer === undefined) throw new Error(`case "${evalCase.id}" has no expected.answer and ${scorer} no value`);
  return answer;
}

/**
 * Options of {@link exactAnswer}.
 *
 * @example
 * ```ts
 * const options: ExactAnswerOptions = { value: 'Paris', ignoreCase: true };
 * ```
 */
export interface ExactAnswerOptions {
  /** Default: the case's `expected.answer`. */
  readonly value?: string;
  readonly ignoreCase?: boolean;
  readonly name?: string;
}

/**
 * 1 when the final answer, trimmed, equals the expected answer, trimmed; else 0.
 *
 * @example
 * ```ts
 * const scorers = [exactAnswer({ ignoreCase: true })];
 * ```
 */
export function exactAnswer(options: ExactAnswerOptions = {}): Scorer {
  checkOptionKeys(
    'exactAnswer',
    options,
    optionKeys<ExactAnswerOptions>({ value: true, ignoreCase: true, name: true }),
  );
  const fold = (s: string) => (options.ignoreCase ? s.trim().toLowerCase() : s.trim());
  return {
    name: options.name ?? 'answer:exact',
    score: (sample, evalCase) => {
      const want = options.value ?? expectedAnswer(evalCase, 'exactAnswer');
      const ok = fold(sample.answer) === fold(want);
      return {
        score: ok ? 1 : 0,
        reason: ok ? 'exact answer' : `answered ${excerpt(sample.answer)}, expected ${excerpt(want)}`,
      };
    },
  };
}

/**
 * Options of {@link includesAnswer}.
 *
 * @example
 * ```ts
 * const options: IncludesAnswerOptions = { values: ['sum.js', 'a + b'] };
 * ```
 */
export interface IncludesAnswerOptions {
  /** The texts the answer must contain; default: the case's `expected.answer`. */
  readonly values?: readonly string[];
  readonly ignoreCase?: boolean;
  readonly name?: string;
}

/**
 * The share of the expected texts the final answer contains; passes when it contains all.
 *
 * @example
 * ```ts
 * const scorers = [includesAnswer({ values: ['sum.js'] })];
 * ```
 */
export function includesAnswer(options: IncludesAnswerOptions = {}): Scorer {
  checkOptionKeys(
    'includesAnswer',
    options,
    optionKeys<IncludesAnswerOptions>({ values: true, ignoreCase: true, name: true }),
  );
  const fold = (s: string) => (options.ignoreCase ? s.toLowerCase() : s);
  return {
    name: options.name ?? 'answer:includes',
    score: (sample, evalCase) => {
      const values = options.values ?? [expectedAnswer(evalCase, 'includesAnswer')];
      const missing = values.filter((v) => !fold(sample.answer).includes(fold(v)));
      return {
        score: values.length ? (values.length - missing.length) / values.length : 1,
        reason: missing.length ? `missing ${missing.map(excerpt).join(', ')}` : 'contains every expected text',
      };
    },
  };
}

/**
 * Options of {@link regexAnswer}.
 *
 * @example
 * ```ts
 * const options: RegexAnswerOptions = { pattern: /\bsum\.js\b/ };
 * ```
 */
export interface RegexAnswerOptions {
  readonly pattern: RegExp;
  readonly name?: string;
}

/**
 * 1 when the final answer matches the pattern.
 *
 * @example
 * ```ts
 * const scorers = [regexAnswer({ pattern: /^\d+ files?$/ })];
 * ```
 */
export function regexAnswer(options: RegexAnswerOptions): Scorer {
  checkOptionKeys('regexAnswer', options, optionKeys<RegexAnswerOptions>({ pattern: true, name: true }));
  if (!(options.pattern instanceof RegExp)) {
    throw new OptionsError('invalid_option', 'regexAnswer.pattern', 'regexAnswer: pattern must be a RegExp.');
  }
  const pattern = new RegExp(options.pattern.source, options.pattern.flags.replace('g', ''));
  return {
    name: options.name ?? 'answer:regex',
    score: (sample) => {
      const ok = pattern.test(sample.answer);
      return {
        score: ok ? 1 : 0,
        reason: `${excerpt(sample.answer)} ${ok ? 'matches' : 'does not match'} ${String(pattern)}`,
      };
    },
  };
}

/**
 * Options of {@link numericAnswer}.
 *
 * @example
 * ```ts
 * const options: NumericAnswerOptions = { value: 3.14, tolerance: 0.01 };
 * ```
 */
export interface NumericAnswerOptions {
  /** Default: the case's `expected.answer` as a number. */
  readonly value?: number;
  /** How far off the answer may be, absolutely. Default 0. */
  readonly tolerance?: number;
  /** How far off the answer may be, as a share of the value (0.01 = 1 %). Default 0. */
  readonly relative?: number;
  readonly name?: string;
}

/**
 * 1 when the last number in the final answer is within the tolerance of the expected value.
 *
 * @example
 * ```ts
 * const scorers = [numericAnswer({ tolerance: 0.5 })];
 * ```
 */
export function numericAnswer(options: NumericAnswerOptions = {}): Scorer {
  checkOptionKeys(
    'numericAnswer',
    options,
    optionKeys<NumericAnswerOptions>({ value: true, tolerance: true, relative: true, name: true }),
  );
  for (const key of ['tolerance', 'relative'] as const) {
    const v = options[key];
    if (v !== undefined && !(typeof v === 'number' && v >= 0)) {
      throw new OptionsError('invalid_option', `numericAnswer.${key}`, `numericAnswer: ${key} must be a number >= 0.`);
    }
  }
  return {
    name: options.name ?? 'answer:numeric',
    score: (sample, evalCase) => {
      const want = options.value ?? Number(expectedAnswer(evalCase, 'numericAnswer'));
      if (!Number.isFinite(want)) throw new Error(`case "${evalCase.id}": expected.answer is not a number`);
      const numbers = sample.answer.replace(/(\d),(?=\d{3}\b)/g, '$1').match(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi);
      const got = numbers ? Number(numbers.at(-1)) : undefined;
      if (got === undefined) return { score: 0, reason: `no number in ${excerpt(sample.answer)}` };
      const allowed = Math.max(options.tolerance ?? 0, Math.abs(want) * (options.relative ?? 0));
      const ok = Math.abs(got - want) <= allowed;
      return { score: ok ? 1 : 0, reason: `answered ${got}, expected ${want} ± ${allowed}` };
    },
  };
}
