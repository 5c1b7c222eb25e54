import { RxscopeError } from './rxscope-error.js';

/**
 * Why an options object was refused: a key its owner does not know (`unknown_option`) or a
 * value of the wrong kind (`invalid_option`).
 *
 * @example
 * ```ts
 * const isTypo = (code: OptionsErrorCode) => code === 'unknown_option';
 * ```
 */
export type OptionsErrorCode = 'unknown_option' | 'invalid_option';

/**
 * An options object a user wrote was refused when it was given (a constructor, a factory), so a
 * misspelt key fails at start-up instead of silently keeping a default. The message names the
 * key, the closest known key ("did you mean") or the rxscope spelling of another framework's
 * name, and lists the known keys. Thrown by {@link checkOptionKeys}; packages that check options
 * of their own throw it or a subclass of it.
 *
 * @example
 * ```ts
 * try {
 *   new RetryMiddleware({ maxRetry: 3 } as never);
 * } catch (e) {
 *   if (e instanceof OptionsError && e.code === 'unknown_option') console.error(e.message); // … did you mean "maxRetries"?
 * }
 * ```
 */
export class OptionsError extends RxscopeError {
  /** `OptionsError`, or the name of a package's subclass (`HarnessOptionError`). */
  override readonly name: string = 'OptionsError';

  constructor(
    /** `unknown_option` (a key the owner does not know) or `invalid_option` (a value, or no object). */
    readonly code: OptionsErrorCode,
    /** The option refused, as `owner.key` (`RetryMiddleware.maxRetry`). */
    readonly option: string,
    message: string,
  ) {
    super(message);
  }
}
