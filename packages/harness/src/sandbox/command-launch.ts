import type { CommandCgroup } from './command-cgroup.js';
import type { ResolvedSandboxLimits } from './sandbox-limits.js';

/**
 * How a sandbox starts one command: the program with its arguments (the wrappers and the
 * command), the command's cgroup, and the limits in force, which `runProcess` names when one is
 * exceeded.
 *
 * @example
 * ```ts
 * const launch: CommandLaunch = { file: '/bin/sh', args: ['-c', 'make'], cgroup: undefined, limits: plan.inForce };
 * runProcess(launch, { cwd, env, timeoutMs: 60_000 });
 * ```
 */
export interface CommandLaunch {
  readonly file: string;
  readonly args: readonly string[];
  readonly cgroup: CommandCgroup | undefined;
  readonly limits: ResolvedSandboxLimits;
}

/**
 * The launcher that puts itself into the command's cgroup(s) and then execs the rest, so every
 * process of the command is in them from its first instruction (children inherit the cgroup;
 * placing the pid from the agent after spawn would race the command's first fork).
 */
const PLACE_IN_CGROUP = 'while [ "$1" != -- ]; do { echo $$ > "$1"; } 2>/dev/null; shift; done; shift; exec "$@"';

/**
 * `argv` started inside `cgroup` (unchanged without one).
 *
 * @example
 * ```ts
 * inCgroup(cgroup, ['bwrap', ...args]); // ['/bin/sh', '-c', '<place>', 'rxscope-cgroup', '.../cgroup.procs', '--', 'bwrap', ...args]
 * ```
 */
export function inCgroup(cgroup: CommandCgroup | undefined, argv: readonly string[]): string[] {
  if (!cgroup) return [...argv];
  return ['/bin/sh', '-c', PLACE_IN_CGROUP, 'rxscope-cgroup', ...cgroup.procsFiles, '--', ...argv];
}

/**
 * The first process of a PID namespace of the command's own: a shell that runs the command as
 * its child and exits with its status. The command is not PID 1 itself, since PID 1 ignores
 * every signal it has no handler for (`kill $$`, SIGXCPU, SIGXFSZ would do nothing); when this
 * shell exits, the kernel kills whatever is left in the namespace.
 *
 * @example
 * ```ts
 * ['unshare', '--pid', '--fork', '--', ...namespaceInit('/bin/bash', 'make test')];
 * ```
 */
export function namespaceInit(shell: string, command: string): string[] {
  return ['/bin/sh', '-c', '"$1" -c "$2"; exit $?', 'rxscope-init', shell, command];
}
