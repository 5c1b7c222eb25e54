import { RxscopeError } from '@rxscope/core';

/**
 * What a {@link DevtoolsError} is about: `devtools_not_enabled` (a handler created with
 * `NODE_ENV=production` and no explicit `enabled`), `devtools_invalid_option` (an option with a
 * value it cannot take).
 *
 * @example
 * ```ts
 * const fixTheConfig = (code: DevtoolsErrorCode) => code === 'devtools_not_enabled';
 * ```
 */
export type DevtoolsErrorCode = 'devtools_not_enabled' | 'devtools_invalid_option';

/**
 * A refusal of `@rxscope/devtools` at setup time (unknown option keys are refused with the
 * core's `OptionsError`): a stable `code` and a message naming the option to set.
 *
 * @example
 * ```ts
 * try {
 *   createDevtoolsHandler({ recorder });
 * } catch (e) {
 *   if (e instanceof DevtoolsError && e.code === 'devtools_not_enabled') console.warn(e.message);
 * }
 * ```
 */
export class DevtoolsError extends RxscopeError {
  override readonly name = 'DevtoolsError';
  constructor(
    /** What the refusal is about; branch on it. */
    readonly code: DevtoolsErrorCode,
    message: string,
  ) {
    super(message);
  }
}
