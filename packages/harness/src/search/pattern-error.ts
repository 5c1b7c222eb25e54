import { RxscopeError } from '@rxscope/core';

/**
 * Why a search pattern was refused.
 *
 * @example
 * ```ts
 * const retryable: PatternErrorCode[] = ['pattern_unsupported', 'pattern_too_complex']; // the model can rewrite these
 * ```
 */
export type PatternErrorCode = 'pattern_invalid' | 'pattern_unsupported' | 'pattern_too_long' | 'pattern_too_complex';

/**
 * A regular expression (`grep_files`) or a glob (`glob_files`, `grep_files`' `glob`,
 * `WorkspaceFileSystem.glob`) was refused before any file was searched: not valid
 * (`pattern_invalid`), using syntax a linear-time engine cannot run, such as backreferences or
 * lookaround (`pattern_unsupported`), too long (`pattern_too_long`) or compiling to too large a
 * program (`pattern_too_complex`). The message names the problem and says what is supported, so
 * the model can rewrite the pattern.
 *
 * @example
 * ```ts
 * try {
 *   await fs.glob('+(a|b).ts');
 * } catch (e) {
 *   if (e instanceof PatternError && e.code === 'pattern_unsupported') console.log(e.message);
 * }
 * ```
 */
export class PatternError extends RxscopeError {
  override readonly name = 'PatternError';

  constructor(
    readonly code: PatternErrorCode,
    /** The pattern refused. */
    readonly pattern: string,
    message: string,
  ) {
    super(message);
  }
}
