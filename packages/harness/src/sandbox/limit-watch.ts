import { availableParallelism, constants } from 'node:os';
import type { CommandCgroup } from './command-cgroup.js';
import { type ExceededLimit, exceededLimit, type ResolvedSandboxLimits } from './sandbox-limits.js';

/** What a shell (or the program itself) prints on stderr when a process hits a limit. */
const STDERR_SIGNS = {
  cpuSeconds: /CPU time limit exceeded/i,
  fileSizeBytes: /File size limit exceeded/i,
  openFiles: /Too many open files(?! in system)/i,
  // Where RLIMIT_NPROC (not a cgroup, which counts refusals itself) bounds the processes.
  processes: /Cannot fork|fork: (retry: )?Resource temporarily unavailable/,
} as const;

/** Characters kept between stderr chunks, so a sign split across two chunks is still seen. */
const CARRY = 40;

/**
 * Tells which limit a command exceeded, from what it left behind: its cgroup's counters (a fork
 * refused, a process killed for memory), the signal that ended it or the shell's `128 + signal`
 * status (SIGXCPU, SIGXFSZ), and the signs a shell or program prints on stderr when a process of
 * a longer command dies of one (`File size limit exceeded`) or a limit refuses it (`Too many open
 * files`, `Cannot fork`). Only limits in force are named.
 *
 * @example
 * ```ts
 * const watch = new LimitWatch(plan.inForce, plan.cgroup, Date.now());
 * child.stderr.on('data', (b) => watch.stderr(b.toString()));
 * child.on('close', (code, signal) => console.log(watch.exceeded(code, signal)?.message));
 * ```
 */
export class LimitWatch {
  private carry = '';
  private readonly seen = new Set<keyof typeof STDERR_SIGNS>();

  constructor(
    private readonly limits: ResolvedSandboxLimits,
    private readonly cgroup: CommandCgroup | undefined,
    private readonly startedAt: number,
  ) {}

  /** Scans a chunk of the command's stderr. */
  stderr(text: string): void {
    const scanned = this.carry + text;
    for (const [limit, sign] of Object.entries(STDERR_SIGNS) as [keyof typeof STDERR_SIGNS, RegExp][]) {
      if (sign.test(scanned)) this.seen.add(limit);
    }
    this.carry = scanned.slice(-CARRY);
  }

  /** The limit the command exceeded, once it ended with `exitCode` / `signal`; `undefined` if none. */
  exceeded(exitCode: number | null, signal: string | null): ExceededLimit | undefined {
    const { limits } = this;
    const counters = this.cgroup?.exceeded();
    if (counters?.memory && limits.memoryBytes !== null) return exceededLimit('memoryBytes', limits.memoryBytes);
    if (counters?.processes && limits.processes !== null) return exceededLimit('processes', limits.processes);
    const died = (name: 'SIGXCPU' | 'SIGXFSZ') => signal === name || exitCode === 128 + constants.signals[name];
    // A process cannot use more CPU time than the wall time on every core: an exit status 152
    // sooner than that is the program's own.
    const cpu = limits.cpuSeconds;
    const cpuPossible = cpu !== null && (Date.now() - this.startedAt) * availableParallelism() >= cpu * 1000 * 0.9;
    if (cpuPossible && (died('SIGXCPU') || this.seen.has('cpuSeconds'))) return exceededLimit('cpuSeconds', cpu);
    if (limits.fileSizeBytes !== null && (died('SIGXFSZ') || this.seen.has('fileSizeBytes'))) {
      return exceededLimit('fileSizeBytes', limits.fileSizeBytes);
    }
    if (limits.openFiles !== null && this.seen.has('openFiles')) return exceededLimit('openFiles', limits.openFiles);
    if (limits.processes !== null && this.seen.has('processes')) return exceededLimit('processes', limits.processes);
    return undefined;
  }
}
