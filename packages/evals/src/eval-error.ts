import { RxscopeError } from '@rxscope/core';

/**
 * What an {@link EvalError} is about: `dataset_invalid` (a dataset or a recording that cannot be
 * read as cases), `judge_unparsable` (the judge's answer could not be read twice),
 * `results_invalid` (a results file that is not one), `suite_invalid` (an eval suite module
 * without a valid suite).
 *
 * @example
 * ```ts
 * const fixTheFile = (code: EvalErrorCode) => code === 'results_invalid' || code === 'suite_invalid';
 * ```
 */
export type EvalErrorCode = 'dataset_invalid' | 'judge_unparsable' | 'results_invalid' | 'suite_invalid';

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
