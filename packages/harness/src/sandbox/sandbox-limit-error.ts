import { RxscopeError } from '@rxscope/core';
import type { ExceededLimit } from './sandbox-limits.js';

/**
 * A command exceeded a resource limit of its sandbox (CPU time, memory, processes, file size,
 * open files): the `execute` tool fails with it, so the result is an `error` whose text says
 * which limit, followed by the command's output. Code `sandbox_limit_exceeded`.
 *
 * @example
 * ```ts
 * const error = new SandboxLimitError(exceededLimit('cpuSeconds', 30), 'killed by SIGXCPU', '(no output)');
 * error.message; // 'The command exceeded its CPU time limit of 30 s (killed by SIGXCPU). Output:\n(no output)'
 * ```
 */
export class SandboxLimitError extends RxscopeError {
  override readonly name = 'SandboxLimitError';
  readonly code = 'sandbox_limit_exceeded';

  constructor(
    readonly exceeded: ExceededLimit,
    /** How the command ended: `exit code 137`, `killed by SIGXCPU`. */
    end: string,
    output: string,
  ) {
    const said = exceeded.message.charAt(0).toUpperCase() + exceeded.message.slice(1);
    super(`${said} (${end}). Output:\n${output}`);
  }
}
