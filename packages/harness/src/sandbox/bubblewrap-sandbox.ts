import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { type Observable, throwError } from 'rxjs';
import { runProcess } from './run-process.js';
import type { ExecEvent, ExecOptions, Sandbox, SandboxSession } from './sandbox.js';
import { SessionProcesses } from './session-processes.js';

/** Options of {@link BubblewrapSandbox}. */
export interface BubblewrapSandboxOptions {
  /** The bubblewrap binary. Default `bwrap` (Debian/Ubuntu: `apt-get install bubblewrap`). */
  readonly bwrap?: string;
  /** System folders mounted read-only. Default `/usr`, `/bin`, `/sbin`, `/lib`, `/lib32`, `/lib64`, `/etc`, `/opt` (those that exist). */
  readonly systemPaths?: readonly string[];
  /** More folders mounted read-only (a toolchain outside `/usr`, say). */
  readonly readOnlyPaths?: readonly string[];
  /** Files hidden inside the sandbox (replaced by an empty file). Default `/etc/shadow`, `/etc/gshadow`. */
  readonly hiddenFiles?: readonly string[];
  /** Variables set inside (the agent's environment is cleared). `PATH`, `HOME`, `LANG`, `TERM` are set by default. */
  readonly env?: Readonly<Record<string, string>>;
  /** Shell inside the sandbox. Default `/bin/sh`. */
  readonly shell?: string;
}

const DEFAULT_SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/etc', '/opt'];

/**
 * Runs each command under bubblewrap (`bwrap`): its own user, PID, network, IPC and UTS
 * namespaces (no network at all: not even the host's loopback), the system folders read-only,
 * the workspace the only writable place (mounted at its own path), a private `/tmp`, a fresh
 * `/proc` and a minimal `/dev`, every capability dropped, the environment cleared, and
 * `--die-with-parent`. Nothing else of the host's files is visible (not `/home`, `/root`,
 * other workspaces). The command's whole PID namespace dies with it: on timeout, on
 * unsubscribe (the reply cancelled) and when the reply releases the session.
 *
 * @example
 * ```ts
 * createHarnessAgent({ model, workspace: './ws', sandbox: 'bubblewrap' });
 * createHarnessAgent({ model, workspace: './ws', sandbox: new BubblewrapSandbox({ readOnlyPaths: ['/opt/toolchain'] }) });
 * ```
 */
export class BubblewrapSandbox implements Sandbox {
  readonly kind = 'bubblewrap';
  readonly description =
    'bubblewrap: own PID/network/user namespaces, no network, read-only system, only the workspace writable, killed with its reply';
  private readonly bwrap: string;
  private readonly options: BubblewrapSandboxOptions;
  private checked: Promise<void> | undefined;

  constructor(options: BubblewrapSandboxOptions = {}) {
    this.bwrap = options.bwrap ?? 'bwrap';
    this.options = options;
  }

  /** The `bwrap` arguments for a command in `workspace` (exposed for inspection and tests). */
  argumentsFor(workspace: string, command: string): string[] {
    const args = ['--die-with-parent', '--new-session', '--unshare-all', '--cap-drop', 'ALL', '--clearenv'];
    for (const path of this.options.systemPaths ?? DEFAULT_SYSTEM_PATHS) {
      if (!existsSync(path)) continue;
      const st = lstatSync(path);
      // Merged /usr: /bin -> usr/bin stays a link inside too.
      if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
      else args.push('--ro-bind', path, path);
    }
    for (const path of this.options.readOnlyPaths ?? []) args.push('--ro-bind', path, path);
    for (const file of this.options.hiddenFiles ?? ['/etc/shadow', '/etc/gshadow']) {
      if (existsSync(file)) args.push('--ro-bind', '/dev/null', file);
    }
    args.push(
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--tmpfs',
      '/tmp',
      '--bind',
      workspace,
      workspace,
      '--chdir',
      workspace,
    );
    const env = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: workspace,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      ...this.options.env,
    };
    for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
    args.push(this.options.shell ?? '/bin/sh', '-c', command);
    return args;
  }

  async acquire({ workspace }: { readonly workspace: string }): Promise<SandboxSession> {
    await (this.checked ??= this.check());
    const processes = new SessionProcesses();
    const bwrap = this.bwrap;
    const argsFor = (command: string) => this.argumentsFor(workspace, command);
    return {
      exec(command: string, options: ExecOptions): Observable<ExecEvent> {
        if (processes.isReleased) return throwError(() => new Error('The sandbox of this reply was released.'));
        return runProcess(bwrap, argsFor(command), { cwd: workspace, env: {}, ...options, track: processes.track });
      },
      release(): Promise<void> {
        processes.killAll();
        return Promise.resolve();
      },
    };
  }

  /** bubblewrap must be installed and able to create its namespaces here: else a clear error at acquire. */
  private check(): Promise<void> {
    return new Promise((resolve, reject) => {
      execFile(
        this.bwrap,
        ['--unshare-all', '--ro-bind', '/', '/', '/bin/true'],
        { timeout: 10_000 },
        (err, _out, stderr) => {
          if (!err) return resolve();
          this.checked = undefined;
          const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
          reject(
            new Error(
              missing
                ? `The bubblewrap sandbox needs "${this.bwrap}", which is not installed (Debian/Ubuntu: apt-get install bubblewrap).`
                : `bubblewrap cannot create its sandbox here: ${String(stderr).trim() || err.message}`,
              { cause: err },
            ),
          );
        },
      );
    });
  }
}
