import { checkOptionKeys, optionKeys } from '@rxscope/core';
import { EvalError } from '../eval-error.js';
import type { Thresholds } from './gate.js';
import type { RunEvalOptions } from './run-eval.js';

/**
 * What an eval file for `rxscope-eval` exports as default: the options of `runEval` and the
 * thresholds of the CI gate.
 *
 * @example
 * ```ts
 * export default defineEvalSuite({ name: 'math', dataset, agent: () => new Agent({ model }), scorers: [exactAnswer()], thresholds: { 'answer:exact': { passRate: 0.9 } } });
 * ```
 */
export interface EvalSuite extends RunEvalOptions {
  readonly thresholds?: Thresholds;
}

const KEYS = optionKeys<EvalSuite>({
  dataset: true,
  agent: true,
  scorers: true,
  concurrency: true,
  repeat: true,
  name: true,
  thresholds: true,
});

/**
 * Checks an eval suite's keys (unknown ones are refused with "did you mean") and returns it typed;
 * `runEval` checks the rest when it runs.
 *
 * @example
 * ```ts
 * // evals/math.eval.mjs, run with: npx rxscope-eval evals/math.eval.mjs --out results.json
 * export default defineEvalSuite({ dataset: parseJsonlDataset(text, { name: 'math' }), agent: () => new Agent({ model }), scorers: [numericAnswer()] });
 * ```
 */
export function defineEvalSuite(suite: EvalSuite): EvalSuite {
  if (!suite || typeof suite !== 'object') {
    throw new EvalError('suite_invalid', 'defineEvalSuite: give an object {dataset, agent, scorers, ...}.');
  }
  checkOptionKeys('defineEvalSuite', suite, KEYS);
  return suite;
}
