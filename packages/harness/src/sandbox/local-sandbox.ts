import { defer, type Observable, throwError } from 'rxjs';
import { type CommandLaunch, inCgroup, namespaceInit } from './command-launch.js';
import { refuseUnknownKeys } from './known-keys.js';
import { planLimits } from './limit-plan.js';
import { type LocalHost, type ProcessIsolation, probeLocalHost } from './process-isolation.js';
import { runProcess } from './run-process.js';
import type { ExecEvent, ExecOptions, Sandbox, SandboxSession } from './sandbox.js';
import { SandboxError } from './sandbox-error.js';
import { type ResolvedSandboxLimits, resolveSandboxLimits, type SandboxLimits } from './sandbox-limits.js';
import { SessionProcesses } from './session-processes.js';

/**
 * Options of {@link LocalSandbox}.
 *
 * @example
 * ```ts
 * const options: LocalSandboxOptions = { env: { CI: '1' }, limits: { memoryBytes: 2 ** 31 }, processIsolation: 'pid-namespace' };
 * ```
 */
export interface LocalSandboxOptions {
  /** Shell that runs each command (`<shell> -c <command>`). Default `/bin/sh`. */
  readonly shell?: string;
  /**
   * The environment commands see. Nothing of the agent's own environment is passed (no API
   * keys, no tokens) except `PATH`; these variables are added. Default: none.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Resource limits of each command; see {@link SandboxLimits} for the defaults. */
  readonly limits?: SandboxLimits;
  /** How a command's process tree is held; see {@link ProcessIsolation}. Default `'auto'`. */
  readonly processIsolation?: ProcessIsolation;
}

const OPTION_KEYS = ['shell', 'env', 'limits', 'processIsolation'] as const;
const ISOLATIONS: readonly ProcessIsolation[] = ['auto', 'pid-namespace', 'process-group'];

function invalid(message: string): SandboxError {
  return new SandboxError('sandbox_option_invalid', `LocalSandbox options: ${message}`);
}

function checkOptions(options: LocalSandboxOptions): void {
  refuseUnknownKeys('LocalSandbox', options, OPTION_KEYS);
  if (options.shell !== undefined && (typeof options.shell !== 'string' || options.shell === ''))
    throw invalid(`shell must be the path of a shell such as '/bin/bash', got ${JSON.stringify(options.shell)}.`);
  const env: unknown = options.env;
  if (
    env !== undefined &&
    (typeof env !== 'object' || env === null || Object.values(env).some((v) => typeof v !== 'string'))
  )
    throw invalid('env must be an object of string values, such as { NODE_ENV: "test" }.');
  if (options.processIsolation !== undefined && !ISOLATIONS.includes(options.processIsolation))
    throw invalid(
      `processIsolation must be ${ISOLATIONS.map((i) => `'${i}'`).join(', ')}; got ${JSON.stringify(options.processIsolation)}.`,
    );
}

/**
 * Runs commands as child processes of the agent's process, in the workspace folder, with a
 * scrubbed environment (`PATH`, `HOME` set to the workspace, `LANG`, `TERM=dumb`, plus
 * `options.env`) and resource limits ({@link SandboxLimits}). Where the machine allows it (Linux
 * with util-linux), each command runs in a PID namespace of its own: its whole process tree
 * (a `setsid` grandchild too) dies when it exits, times out, is cancelled, when the reply
 * releases the session and when the agent's process dies, and the agent's processes and their
 * environment are not visible in its `/proc`. Elsewhere its process group (and cgroup) is
 * killed instead; `description` says which.
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
  private readonly shell: string;
  private readonly env: Readonly<Record<string, string>>;
  private readonly limits: ResolvedSandboxLimits;
  private readonly isolation: ProcessIsolation;

  constructor(options: LocalSandboxOptions = {}) {
    checkOptions(options);
    this.shell = options.shell ?? '/bin/sh';
    this.env = options.env ?? {};
    this.limits = resolveSandboxLimits('LocalSandbox', options.limits);
    this.isolation = options.processIsolation ?? 'auto';
  }

  /** One line on the isolation it gives on this machine (probed on first use). */
  get description(): string {
    const host = probeLocalHost();
    if (this.isolation !== 'process-group' && host.namespace) {
      return (
        'child processes in a PID namespace of their own, in the workspace folder, with a scrubbed environment and resource limits; ' +
        'the whole process tree dies with the command, the reply and the agent; no file or network isolation'
      );
    }
    const why = this.isolation === 'process-group' ? 'processIsolation: process-group' : host.namespaceMissing;
    return (
      'child processes in the workspace folder with a scrubbed environment and resource limits, process-group kill on timeout and cancel; ' +
      `no isolation, and no PID namespace (${why}): commands can read the agent's environment in /proc`
    );
  }

  acquire({ workspace }: { readonly workspace: string }): Promise<SandboxSession> {
    const host = probeLocalHost();
    if (this.isolation === 'pid-namespace' && !host.namespace) {
      return Promise.reject(
        new SandboxError(
          'sandbox_unavailable',
          `LocalSandbox: processIsolation 'pid-namespace' was asked for, but ${host.namespaceMissing}. ` +
            "Install util-linux (setpriv, unshare) or allow user namespaces, or use processIsolation: 'auto'.",
        ),
      );
    }
    const namespace = this.isolation === 'process-group' ? undefined : host.namespace;
    const processes = new SessionProcesses();
    const env = {
      PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: workspace,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      ...this.env,
    };
    const launch = (command: string) => this.launch(host, namespace, command);
    return Promise.resolve({
      exec(command: string, options: ExecOptions): Observable<ExecEvent> {
        if (processes.isReleased)
          return throwError(() => new SandboxError('sandbox_released', 'The sandbox of this reply was released.'));
        // Deferred: the command's cgroup is made when it starts, not when exec is called.
        return defer(() => runProcess(launch(command), { cwd: workspace, env, ...options, track: processes.track }));
      },
      release(): Promise<void> {
        processes.killAll();
        return Promise.resolve();
      },
    });
  }

  /**
   * `setpriv --pdeathsig KILL -- [cgroup launcher] unshare --pid ... -- prlimit ... -- <init> <shell> -c <command>`:
   * the wrapper dies with the agent, the namespace with the wrapper, limits set inside the
   * namespace (after its user namespace is made, so RLIMIT_NPROC counts the command alone).
   */
  private launch(host: LocalHost, namespace: readonly string[] | undefined, command: string): CommandLaunch {
    const plan = planLimits(this.limits, {
      prlimit: host.prlimit,
      processesByRlimit: namespace !== undefined && host.userNamespace,
    });
    const inner = namespace
      ? [...namespace, ...plan.prlimit, ...namespaceInit(this.shell, command)]
      : [...plan.prlimit, this.shell, '-c', command];
    const placed = inCgroup(plan.cgroup, inner);
    const argv = host.setpriv ? [host.setpriv, '--pdeathsig', 'KILL', '--', ...placed] : placed;
    return { file: argv[0]!, args: argv.slice(1), cgroup: plan.cgroup, limits: plan.inForce };
  }
}
