import type { Observable } from 'rxjs';

/** Options of one command run in a sandbox. */
export interface ExecOptions {
  /** The command is killed (its whole process group) after this long. */
  readonly timeoutMs: number;
  /** Output kept for the result: the head and the tail when longer. Default 30,000 characters. */
  readonly maxOutputChars?: number;
}

/** What a running command reports: its output as it comes, then how it ended. */
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
    };

/**
 * A sandbox acquired for one reply: runs shell commands in the workspace until released.
 * `exec` is cold; unsubscribing kills the command (its process group, or its whole PID
 * namespace under bubblewrap). `release` kills whatever still runs.
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
