import { RxscopeError } from '@rxscope/core';

/** Why a sandbox refused: its options, the machine, or a released session. */
export type SandboxErrorCode =
  /** An options object has a key the sandbox does not know (the message suggests the closest known one). */
  | 'sandbox_option_unknown'
  /** An option has a value of the wrong type or range. */
  | 'sandbox_option_invalid'
  /** The machine cannot give what the sandbox needs (bubblewrap missing, no PID namespace where one is required). */
  | 'sandbox_unavailable'
  /** `exec` on a session whose reply already released it. */
  | 'sandbox_released';

/**
 * A sandbox refused: an unknown or invalid option (at construction), a machine that cannot give
 * the isolation asked for (at `acquire`), or a command started on a released session. Branch on
 * `code`.
 *
 * @example
 * ```ts
 * try {
 *   new LocalSandbox({ limts: { memoryBytes: 1e9 } } as never);
 * } catch (e) {
 *   if (e instanceof SandboxError && e.code === 'sandbox_option_unknown') console.log(e.message); // ... did you mean "limits"?
 * }
 * ```
 */
export class SandboxError extends RxscopeError {
  override readonly name = 'SandboxError';

  constructor(
    readonly code: SandboxErrorCode,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}
