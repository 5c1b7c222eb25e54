import { spawnSync } from 'node:child_process';
import { findExecutable, isRoot } from './host-tools.js';

/**
 * How `LocalSandbox` holds a command's process tree:
 * - `'pid-namespace'`: a PID namespace of the command's own (util-linux `unshare`, plus
 *   `setpriv`): every process of the command, a `setsid` one included, dies with it, with the
 *   reply and with the agent's process (a SIGKILLed agent leaves none behind); its `/proc` shows
 *   only the command's processes, so the agent's environment cannot be read there. `acquire`
 *   fails with a `SandboxError` (`sandbox_unavailable`) where the machine cannot make one.
 * - `'process-group'`: the command's process group (and its cgroup where one can be made) is
 *   killed; a process that leaves the group with `setsid` outlives it where there is no cgroup,
 *   and commands can read the agent's environment in `/proc`.
 * - `'auto'` (default): `'pid-namespace'` where the machine allows it, else `'process-group'`.
 *
 * @example
 * ```ts
 * new LocalSandbox({ processIsolation: 'pid-namespace' }); // refuse to run without it
 * ```
 */
export type ProcessIsolation = 'auto' | 'pid-namespace' | 'process-group';

/** What this machine gives `LocalSandbox`. */
export interface LocalHost {
  /** The wrapper putting a command in a PID namespace, up to `--` (absent: none here). */
  readonly namespace: readonly string[] | undefined;
  /** Why there is no PID namespace (when there is none). */
  readonly namespaceMissing: string | undefined;
  /** `setpriv`, which makes the wrapper die with the agent. */
  readonly setpriv: string | undefined;
  readonly prlimit: string | undefined;
  /** True when the namespace wrapper makes a user namespace (not root): RLIMIT_NPROC then counts the command's processes alone. */
  readonly userNamespace: boolean;
}

/** Tries a namespace wrapper: the shell inside must be PID 1. */
function works(setpriv: string, wrapper: readonly string[]): string | undefined {
  const probe = spawnSync(setpriv, ['--pdeathsig', 'KILL', '--', ...wrapper, '/bin/sh', '-c', 'echo $$'], {
    encoding: 'utf8',
    timeout: 10_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (probe.stdout?.trim() === '1') return undefined;
  return (probe.stderr?.trim() || probe.error?.message || `exit status ${probe.status}`).split('\n')[0];
}

/** Probes by `PATH` (the tools found depend on it). */
const probed = new Map<string, LocalHost>();

/**
 * Finds out once per process (and `PATH`) whether commands can run in a PID namespace of their own here
 * (`unshare --pid --fork --kill-child --mount-proc`, with a user namespace when not root), and
 * which of `setpriv` and `prlimit` there are.
 *
 * @example
 * ```ts
 * probeLocalHost().namespace; // ['/usr/bin/unshare', '--pid', ..., '--'] on Linux, undefined on macOS
 * ```
 */
export function probeLocalHost(): LocalHost {
  const key = process.env['PATH'] ?? '';
  const known = probed.get(key);
  if (known) return known;
  const setpriv = findExecutable('setpriv');
  const unshare = findExecutable('unshare');
  const prlimit = findExecutable('prlimit');
  const base = (users: readonly string[]) =>
    unshare ? [unshare, '--pid', '--fork', '--kill-child', '--mount-proc', ...users, '--'] : [];
  // Not root: a user namespace gives the rights to make the others; keep the agent's uid inside
  // where unshare can (util-linux >= 2.38), else map it to root.
  const userFlags = isRoot() ? [[]] : [['--map-current-user'], ['--map-root-user']];
  let missing = !setpriv || !unshare ? 'util-linux setpriv and unshare are not installed' : undefined;
  let namespace: string[] | undefined;
  if (setpriv && unshare) {
    for (const users of userFlags) {
      const failure = works(setpriv, base(users));
      if (failure === undefined) {
        namespace = base(users);
        missing = undefined;
        break;
      }
      missing = `unshare cannot make a PID namespace here: ${failure}`;
    }
  }
  const host = { namespace, namespaceMissing: missing, setpriv, prlimit, userNamespace: !isRoot() };
  probed.set(key, host);
  return host;
}
