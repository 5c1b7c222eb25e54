import { checkOptionKeys } from '@rxscope/core';
import { SandboxError } from './sandbox-error.js';

/**
 * Refuses an options object that is not a plain object or that has a key not in `known`
 * (a misspelt option would otherwise be ignored silently and a limit never applied), in the
 * core's refusal style (`checkOptionKeys`: "did you mean", the known keys). Throws a
 * {@link SandboxError} with code `sandbox_option_unknown` (an unknown key) or
 * `sandbox_option_invalid` (not an object), the codes sandbox callers branch on.
 *
 * @example
 * ```ts
 * refuseUnknownKeys('LocalSandbox', { limts: {} }, ['shell', 'env', 'limits']);
 * // throws: unknown option "limts" of LocalSandbox; did you mean "limits"? Known: shell, env, limits.
 * ```
 */
export function refuseUnknownKeys(where: string, options: unknown, known: readonly string[]): void {
  checkOptionKeys(where, options, known, {
    error: (code, _option, message) =>
      new SandboxError(code === 'unknown_option' ? 'sandbox_option_unknown' : 'sandbox_option_invalid', message),
  });
}
