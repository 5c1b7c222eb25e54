import { readFileSync } from 'node:fs';
import { CommandCgroup } from './command-cgroup.js';
import type { ResolvedSandboxLimits } from './sandbox-limits.js';

/** How one command's limits are enforced. */
export interface LimitPlan {
  /** The command's cgroup (processes, memory), when the machine lets the agent make one. */
  readonly cgroup: CommandCgroup | undefined;
  /** The limits in force (`null`: not enforced here), with the values actually set. */
  readonly inForce: ResolvedSandboxLimits;
  /** `[prlimit, ...options, '--']` to put before the command (`[]` without prlimit). */
  readonly prlimit: readonly string[];
}

/** Seconds between SIGXCPU (the soft CPU limit: the process may report it) and SIGKILL. */
const CPU_GRACE_S = 5;

const RLIMIT_ROWS = {
  cpu: 'Max cpu time',
  fsize: 'Max file size',
  data: 'Max data size',
  nproc: 'Max processes',
  nofile: 'Max open files',
} as const;

/**
 * The agent's own hard limits (its commands inherit them): a limit cannot be raised above them
 * without privileges, and prlimit would then refuse to start the command at all.
 */
function hardLimits(): Partial<Record<keyof typeof RLIMIT_ROWS, number>> {
  const hard: Partial<Record<keyof typeof RLIMIT_ROWS, number>> = {};
  let text: string;
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return hard;
  }
  for (const [key, row] of Object.entries(RLIMIT_ROWS) as [keyof typeof RLIMIT_ROWS, string][]) {
    const value = new RegExp(`^${row}\\s+\\S+\\s+(\\S+)`, 'm').exec(text)?.[1];
    if (value !== undefined && value !== 'unlimited') hard[key] = Number(value);
  }
  return hard;
}

/**
 * Decides how each limit of a command is enforced: processes and memory by a cgroup of its own
 * where one can be made; else memory by RLIMIT_DATA (not RLIMIT_AS: V8 reserves far more address
 * space than it uses, and `node` would not start) and processes by RLIMIT_NPROC only where that
 * counts the command's processes alone (`processesByRlimit`: not root, in a user namespace of the
 * command's own); CPU seconds, file size and open files by prlimit. Without prlimit (not Linux)
 * only the cgroup limits hold.
 *
 * @example
 * ```ts
 * const plan = planLimits(limits, { prlimit: '/usr/bin/prlimit', processesByRlimit: false });
 * spawn(...inCgroup(plan.cgroup, [...plan.prlimit, '/bin/sh', '-c', command]));
 * ```
 */
export function planLimits(
  limits: ResolvedSandboxLimits,
  host: { readonly prlimit: string | undefined; readonly processesByRlimit: boolean },
): LimitPlan {
  const cgroup = CommandCgroup.create(limits);
  const hard = hardLimits();
  const inForce: Record<keyof ResolvedSandboxLimits, number | null> = {
    cpuSeconds: null,
    memoryBytes: cgroup?.holds('memory') ? limits.memoryBytes : null,
    processes: cgroup?.holds('pids') ? limits.processes : null,
    fileSizeBytes: null,
    openFiles: null,
  };
  if (!host.prlimit) return { cgroup, inForce, prlimit: [] };
  const options: string[] = [];
  const set = (key: keyof typeof RLIMIT_ROWS, value: number | null): number | null => {
    if (value === null) return null;
    const clamped = Math.min(value, hard[key] ?? Infinity);
    options.push(`--${key}=${clamped}`);
    return clamped;
  };
  if (limits.cpuSeconds !== null) {
    const ceiling = hard.cpu ?? Infinity;
    const soft = Math.min(limits.cpuSeconds, ceiling);
    options.push(`--cpu=${soft}:${Math.min(soft + CPU_GRACE_S, ceiling)}`);
    inForce.cpuSeconds = soft;
  }
  inForce.fileSizeBytes = set('fsize', limits.fileSizeBytes);
  inForce.openFiles = set('nofile', limits.openFiles);
  if (inForce.memoryBytes === null) inForce.memoryBytes = set('data', limits.memoryBytes);
  if (inForce.processes === null && host.processesByRlimit) inForce.processes = set('nproc', limits.processes);
  return { cgroup, inForce, prlimit: options.length ? [host.prlimit, ...options, '--'] : [] };
}
