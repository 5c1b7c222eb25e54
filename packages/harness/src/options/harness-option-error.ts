import { RxscopeError } from '@rxscope/core';

/**
 * Why an options object was refused.
 *
 * @example
 * ```ts
 * const isTypo = (code: HarnessOptionErrorCode) => code === 'unknown_option'; // a misspelt key
 * ```
 */
export type HarnessOptionErrorCode = 'unknown_option' | 'invalid_option';

/**
 * An options object given to a harness tool or to the workspace file system was refused: a key
 * it does not know (`unknown_option`, with the closest known key as "did you mean") or a value
 * of the wrong kind (`invalid_option`). Thrown when the tool is built (or the method called), so
 * a typo fails at start-up instead of silently keeping a default.
 *
 * @example
 * ```ts
 * try {
 *   grepFilesTool(fs, { maxMatchs: 50 } as never);
 * } catch (e) {
 *   if (e instanceof HarnessOptionError && e.code === 'unknown_option') console.log(e.message); // … did you mean "maxMatches"?
 * }
 * ```
 */
export class HarnessOptionError extends RxscopeError {
  override readonly name = 'HarnessOptionError';

  constructor(
    readonly code: HarnessOptionErrorCode,
    /** The option refused, as `owner.key` (`grepFilesTool.maxMatchs`). */
    readonly option: string,
    message: string,
  ) {
    super(message);
  }
}
