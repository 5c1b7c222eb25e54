import type { Observable } from 'rxjs';
import type { ExceededLimit } from './sandbox-limits.js';

/**
 * Options of one command run in a sandbox.
 *
 * @example
 * ```ts
 * session.exec('npm test', { timeoutMs: 120_000, maxOutputChars: 30_000 });
 * ```
 */
export interface ExecOptions {
  /** The command is killed (its whole process tree) after this long: its wall-time limit. */
  readonly timeoutMs: number;
  /** Output kept for the result: the head and the tail when longer. Default 30,000 characters. */
  readonly maxOutputChars?: number;
}

/**
 * What a running command reports: its output as it comes, then how it ended.
 *
 * @example
 * ```ts
 * session.exec('yes > /dev/null', { timeoutMs: 60_000 }).subscribe((e) => {
 *   if (e.type === 'exit' && e.exceededLimit) console.log(e.exceededLimit.message); // the command exceeded its CPU time limit of 30 s
 * });
 * ```
 */
export type ExecEvent =
  | { readonly type: 'output'; readonly text: string }
  | {
      readonly type: 'exit';
      /** Exit code, or `null` when a signal ended it. */
      readonly exitCode: number | null;
      readonly signal: string | null;
      readonly timedOut: boolean;
      /** stdout and stderr interleaved as they came, capped (head and tail kept). */
      readonly output: string;
      /** Characters left out of `output` by the cap. */
      readonly omittedChars: number;
      /** The resource limit the command exceeded, when the sandbox can tell (see `SandboxLimits`). */
      readonly exceededLimit?: ExceededLimit;
    };

/**
 * A sandbox acquired for one reply: runs shell commands in the workspace until released.
 * `exec` is cold; unsubscribing kills the command's whole process tree (its PID namespace, or
 * its process group and cgroup where the machine has no PID namespace for it). `release` kills
 * whatever still runs; `exec` after it fails with a `SandboxError` (`sandbox_released`).
 *
 * @example
 * ```ts
 * const session = await new LocalSandbox().acquire({ workspace: '/tmp/ws' });
 * session.exec('make', { timeoutMs: 60_000 }).subscribe({ complete: () => void session.release() });
 * ```
 */
export interface SandboxSession {
  exec(command: string, options: ExecOptions): Observable<ExecEvent>;
  release(): Promise<void>;
}

/**
 * Where the `execute` tool runs commands. `acquire` is called once per reply (by
 * `SandboxLifecycleMiddleware`) and the session it returns lives in that reply's context,
 * never in a field shared by replies.
 *
 * @example
 * ```ts
 * const sandbox: Sandbox = new LocalSandbox();
 * const session = await sandbox.acquire({ workspace: '/tmp/ws' });
 * session.exec('ls', { timeoutMs: 5_000 }).subscribe((e) => e.type === 'exit' && console.log(e.output));
 * ```
 */
export interface Sandbox {
  /** Short name shown by `describeHarness` (`local`, `bubblewrap`, ...). */
  readonly kind: string;
  /** One line on the isolation it gives. */
  readonly description: string;
  acquire(options: { readonly workspace: string }): Promise<SandboxSession>;
}
