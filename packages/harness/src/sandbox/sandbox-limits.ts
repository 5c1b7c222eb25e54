import { refuseUnknownKeys } from './known-keys.js';
import { SandboxError } from './sandbox-error.js';

/**
 * Resource limits of each command a sandbox runs (`LocalSandbox` and `BubblewrapSandbox` take
 * the same `limits` option). A key left out keeps its default; `null` lifts that limit. The wall
 * time is the `execute` tool's timeout and the output size its `maxOutputChars`, not set here.
 *
 * How each is enforced (see docs/harness.md, "Sandboxes"): processes and memory by a cgroup of
 * the command's own where the machine lets the agent create one, the others by `prlimit`.
 *
 * @example
 * ```ts
 * new BubblewrapSandbox({ limits: { memoryBytes: 8 * 2 ** 30, cpuSeconds: 600 } });
 * new LocalSandbox({ limits: { openFiles: null } }); // no open-files limit, the other defaults kept
 * ```
 */
export interface SandboxLimits {
  /** CPU time of each process of the command, in seconds (RLIMIT_CPU). Default 300. */
  readonly cpuSeconds?: number | null;
  /** Memory of the whole command (all its processes), in bytes. Default 4 GiB. */
  readonly memoryBytes?: number | null;
  /** Processes and threads the command runs at once (a fork bomb stops here). Default 1024. */
  readonly processes?: number | null;
  /** Largest file a process of the command may write, in bytes (RLIMIT_FSIZE). Default 1 GiB. */
  readonly fileSizeBytes?: number | null;
  /** Files each process of the command may hold open (RLIMIT_NOFILE). Default 4096. */
  readonly openFiles?: number | null;
}

/** The name of one limit of {@link SandboxLimits}. */
export type SandboxLimitName = keyof SandboxLimits;

/** Limits with every default filled in (`null`: no limit). */
export type ResolvedSandboxLimits = { readonly [K in SandboxLimitName]-?: number | null };

/**
 * A limit a command exceeded, as the sandbox reports it on the `exit` event.
 *
 * @example
 * ```ts
 * const exceeded: ExceededLimit = { limit: 'cpuSeconds', value: 30, message: 'the command exceeded its CPU time limit of 30 s' };
 * ```
 */
export interface ExceededLimit {
  readonly limit: SandboxLimitName;
  /** The limit's value (seconds, bytes or a count). */
  readonly value: number;
  /** Which limit, in words: `the command exceeded its CPU time limit of 30 s`. */
  readonly message: string;
}

/**
 * The defaults of {@link SandboxLimits}: generous for builds and test runs, small enough that a
 * runaway command does not take the host down.
 *
 * @example
 * ```ts
 * new LocalSandbox({ limits: { memoryBytes: DEFAULT_SANDBOX_LIMITS.memoryBytes! * 2 } });
 * ```
 */
export const DEFAULT_SANDBOX_LIMITS: ResolvedSandboxLimits = Object.freeze({
  cpuSeconds: 300,
  memoryBytes: 4 * 2 ** 30,
  processes: 1024,
  fileSizeBytes: 2 ** 30,
  openFiles: 4096,
});

const LIMIT_NAMES = Object.keys(DEFAULT_SANDBOX_LIMITS) as SandboxLimitName[];

/** Checks `limits` (unknown keys, values) and fills in the defaults; throws a {@link SandboxError}. */
export function resolveSandboxLimits(where: string, limits: SandboxLimits | undefined): ResolvedSandboxLimits {
  refuseUnknownKeys(`${where} limits`, limits, LIMIT_NAMES);
  const resolved: Record<string, number | null> = { ...DEFAULT_SANDBOX_LIMITS };
  for (const name of LIMIT_NAMES) {
    const value: unknown = limits?.[name];
    if (value === undefined) continue;
    if (value !== null && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)) {
      throw new SandboxError(
        'sandbox_option_invalid',
        `${where} limits.${name} must be a positive integer or null (no limit), got ${JSON.stringify(value)}.`,
      );
    }
    resolved[name] = value;
  }
  return resolved as ResolvedSandboxLimits;
}

/** `1 GiB`, `64 MiB`, `1500 bytes`. */
function bytes(value: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (value >= size) {
      const n = value / size;
      return `${Number.isInteger(n) ? n : n.toFixed(1)} ${unit}`;
    }
  }
  return `${value} bytes`;
}

/**
 * The report of an exceeded limit: `the command exceeded its memory limit of 64 MiB`.
 *
 * @example
 * ```ts
 * exceededLimit('processes', 20).message; // 'the command exceeded its limit of 20 processes'
 * ```
 */
export function exceededLimit(limit: SandboxLimitName, value: number): ExceededLimit {
  const what: Record<SandboxLimitName, string> = {
    cpuSeconds: `its CPU time limit of ${value} s`,
    memoryBytes: `its memory limit of ${bytes(value)}`,
    processes: `its limit of ${value} processes`,
    fileSizeBytes: `its file size limit of ${bytes(value)}`,
    openFiles: `its limit of ${value} open files`,
  };
  return { limit, value, message: `the command exceeded ${what[limit]}` };
}
