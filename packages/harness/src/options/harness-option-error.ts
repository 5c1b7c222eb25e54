import { OptionsError, type OptionsErrorCode } from '@rxscope/core';

/**
 * Why an options object was refused.
 *
 * @example
 * ```ts
 * const isTypo = (code: HarnessOptionErrorCode) => code === 'unknown_option'; // a misspelt key
 * ```
 */
export type HarnessOptionErrorCode = OptionsErrorCode;

/**
 * An options object given to `createHarnessAgent`, a harness tool or the workspace file system
 * was refused (an `OptionsError` of `@rxscope/core`, so one `instanceof` catches every options refusal): a key
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
export class HarnessOptionError extends OptionsError {
  override readonly name: string = 'HarnessOptionError';

  constructor(code: HarnessOptionErrorCode, option: string, message: string) {
    super(code, option, message);
  }
}
