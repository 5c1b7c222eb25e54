import { type Observable, throwError } from 'rxjs';
import { runProcess } from './run-process.js';
import type { ExecEvent, ExecOptions, Sandbox, SandboxSession } from './sandbox.js';
import { SessionProcesses } from './session-processes.js';

/** Options of {@link LocalSandbox}. */
export interface LocalSandboxOptions {
  /** Shell that runs each command (`<shell> -c <command>`). Default `/bin/sh`. */
  readonly shell?: string;
  /**
   * The environment commands see. Nothing of the agent's own environment is passed (no API
   * keys, no tokens) except `PATH`; these variables are added. Default: none.
   */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Runs commands as child processes of the agent's process, in the workspace folder, with a
 * scrubbed environment (`PATH`, `HOME` set to the workspace, `LANG`, `TERM=dumb`, plus
 * `options.env`), each in its own process group that is killed on timeout, on unsubscribe, when
 * the command exits (its background processes) and when the reply releases the session.
 *
 * It is NOT isolation: a command can read and write whatever the agent's user can, and reach
 * the network. Use {@link BubblewrapSandbox} for untrusted work.
 *
 * @example
 * ```ts
 * createHarnessAgent({ model, workspace: './ws', sandbox: new LocalSandbox({ env: { NODE_ENV: 'test' } }) });
 * ```
 */
export class LocalSandbox implements Sandbox {
  readonly kind = 'local';
  readonly description =
    'child processes in the workspace folder with a scrubbed environment, process-group kill on timeout and cancel; no isolation';
  private readonly shell: string;
  private readonly env: Readonly<Record<string, string>>;

  constructor(options: LocalSandboxOptions = {}) {
    this.shell = options.shell ?? '/bin/sh';
    this.env = options.env ?? {};
  }

  acquire({ workspace }: { readonly workspace: string }): Promise<SandboxSession> {
    const processes = new SessionProcesses();
    const env = {
      PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: workspace,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      ...this.env,
    };
    const shell = this.shell;
    return Promise.resolve({
      exec(command: string, options: ExecOptions): Observable<ExecEvent> {
        if (processes.isReleased) return throwError(() => new Error('The sandbox of this reply was released.'));
        return runProcess(shell, ['-c', command], { cwd: workspace, env, ...options, track: processes.track });
      },
      release(): Promise<void> {
        processes.killAll();
        return Promise.resolve();
      },
    });
  }
}
