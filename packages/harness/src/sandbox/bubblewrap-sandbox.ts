import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { defer, type Observable, throwError } from 'rxjs';
import { type CommandLaunch, inCgroup } from './command-launch.js';
import { findExecutable, isRoot } from './host-tools.js';
import { refuseUnknownKeys } from './known-keys.js';
import { planLimits } from './limit-plan.js';
import { runProcess } from './run-process.js';
import type { ExecEvent, ExecOptions, Sandbox, SandboxSession } from './sandbox.js';
import { SandboxError } from './sandbox-error.js';
import { type ResolvedSandboxLimits, resolveSandboxLimits, type SandboxLimits } from './sandbox-limits.js';
import { SessionProcesses } from './session-processes.js';

/**
 * Options of {@link BubblewrapSandbox}.
 *
 * @example
 * ```ts
 * const options: BubblewrapSandboxOptions = { readOnlyPaths: ['/opt/toolchain'], limits: { processes: 256 } };
 * ```
 */
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
  /** Resource limits of each command; see {@link SandboxLimits} for the defaults. */
  readonly limits?: SandboxLimits;
}

const DEFAULT_SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/etc', '/opt'];
const OPTION_KEYS = ['bwrap', 'systemPaths', 'readOnlyPaths', 'hiddenFiles', 'env', 'shell', 'limits'] as const;

function checkOptions(options: BubblewrapSandboxOptions): void {
  refuseUnknownKeys('BubblewrapSandbox', options, OPTION_KEYS);
  const o = options as Record<string, unknown>;
  for (const key of ['bwrap', 'shell'] as const) {
    if (o[key] !== undefined && (typeof o[key] !== 'string' || o[key] === ''))
      throw new SandboxError('sandbox_option_invalid', `BubblewrapSandbox options: ${key} must be a non-empty string.`);
  }
  for (const key of ['systemPaths', 'readOnlyPaths', 'hiddenFiles'] as const) {
    const value = o[key];
    if (
      value !== undefined &&
      (!Array.isArray(value) || value.some((p) => typeof p !== 'string' || !p.startsWith('/')))
    )
      throw new SandboxError(
        'sandbox_option_invalid',
        `BubblewrapSandbox options: ${key} must be a list of absolute paths, got ${JSON.stringify(value)}.`,
      );
  }
}

/**
 * Runs each command under bubblewrap (`bwrap`): its own user, PID, network, IPC and UTS
 * namespaces (no network at all: not even the host's loopback), the system folders read-only,
 * the workspace the only writable place (mounted at its own path), a private `/tmp`, a fresh
 * `/proc` and a minimal `/dev`, every capability dropped, the environment cleared, and
 * `--die-with-parent`. Nothing else of the host's files is visible (not `/home`, `/root`,
 * other workspaces). The command's whole PID namespace dies with it: on timeout, on
 * unsubscribe (the reply cancelled), when the reply releases the session and when the agent's
 * process dies. Each command runs under resource limits ({@link SandboxLimits}).
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
    'bubblewrap: own PID/network/user namespaces, no network, read-only system, only the workspace writable, resource limits, killed with its reply and the agent';
  private readonly bwrap: string;
  private readonly options: BubblewrapSandboxOptions;
  private readonly limits: ResolvedSandboxLimits;
  private checked: Promise<void> | undefined;

  constructor(options: BubblewrapSandboxOptions = {}) {
    checkOptions(options);
    this.bwrap = options.bwrap ?? 'bwrap';
    this.options = options;
    this.limits = resolveSandboxLimits('BubblewrapSandbox', options.limits);
  }

  /**
   * The `bwrap` arguments for a command in `workspace` (exposed for inspection and tests);
   * `wrapper` is a program the shell runs under inside (the `prlimit ... --` of the limits).
   */
  argumentsFor(workspace: string, command: string, wrapper: readonly string[] = []): string[] {
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
    const program = wrapper[0];
    if (program !== undefined && !this.mountsInside(program)) args.push('--ro-bind', program, program);
    args.push(...wrapper, this.options.shell ?? '/bin/sh', '-c', command);
    return args;
  }

  /** True when `path` is inside a folder mounted in the sandbox. */
  private mountsInside(path: string): boolean {
    const mounted = [...(this.options.systemPaths ?? DEFAULT_SYSTEM_PATHS), ...(this.options.readOnlyPaths ?? [])];
    return mounted.some((dir) => existsSync(dir) && !lstatSync(dir).isSymbolicLink() && path.startsWith(`${dir}/`));
  }

  /** `[cgroup launcher] bwrap ... prlimit ... -- <shell> -c <command>`: limits set inside the sandbox's user namespace. */
  private launch(workspace: string, command: string): CommandLaunch {
    const found = findExecutable('prlimit');
    const plan = planLimits(this.limits, {
      prlimit: found && realpathSync(found),
      processesByRlimit: !isRoot(),
    });
    // An absolute path: the launcher runs with the cleared environment (no PATH).
    const bwrap = findExecutable(this.bwrap) ?? this.bwrap;
    const argv = inCgroup(plan.cgroup, [bwrap, ...this.argumentsFor(workspace, command, plan.prlimit)]);
    return { file: argv[0]!, args: argv.slice(1), cgroup: plan.cgroup, limits: plan.inForce };
  }

  async acquire({ workspace }: { readonly workspace: string }): Promise<SandboxSession> {
    await (this.checked ??= this.check());
    const processes = new SessionProcesses();
    const launch = (command: string) => this.launch(workspace, command);
    return {
      exec(command: string, options: ExecOptions): Observable<ExecEvent> {
        if (processes.isReleased)
          return throwError(() => new SandboxError('sandbox_released', 'The sandbox of this reply was released.'));
        // Deferred: the command's cgroup is made when it starts, not when exec is called.
        return defer(() =>
          runProcess(launch(command), { cwd: workspace, env: {}, ...options, track: processes.track }),
        );
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
            new SandboxError(
              'sandbox_unavailable',
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
