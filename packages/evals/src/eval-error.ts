import { RxscopeError } from '@rxscope/core';

/**
 * What an {@link EvalError} is about: `dataset_invalid` (a dataset or a line of one that cannot be
 * read), `cassette_outdated` (the agent no longer makes the recorded requests: re-record),
 * `scorer_failed` (a scorer threw or gave no valid score), `judge_unparsable` (the judge's answer
 * could not be read twice), `results_invalid` (a results file that is not one), `suite_invalid` (an
 * eval suite module without a valid suite).
 *
 * @example
 * ```ts
 * const rerecord = (code: EvalErrorCode) => code === 'cassette_outdated';
 * ```
 */
export type EvalErrorCode =
  'dataset_invalid' | 'cassette_outdated' | 'scorer_failed' | 'judge_unparsable' | 'results_invalid' | 'suite_invalid';

/**
 * Every refusal of `@rxscope/evals` that is not an options error: a stable `code` to branch on and
 * a message that says what to do.
 *
 * @example
 * ```ts
 * try {
 *   parseEvalRun(JSON.parse(text));
 * } catch (e) {
 *   if (e instanceof EvalError && e.code === 'results_invalid') console.error(e.message);
 * }
 * ```
 */
export class EvalError extends RxscopeError {
  override readonly name = 'EvalError';
  constructor(
    readonly code: EvalErrorCode,
    message: string,
  ) {
    super(message);
  }
}
