import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';

/**
 * Who wrote a lock file: enough to decide, from another process, whether the writer still runs.
 * `host`, `boot` (the kernel's boot id) and `ns` (the pid namespace) say whether `pid` means the
 * same process here; `start` (the process's start time in clock ticks since boot) tells a pid
 * reused by a newer process; `nonce` makes every lock's content unique. `boot`, `ns` and `start`
 * come from /proc and are absent where it is missing (macOS, Windows).
 */
export interface LockOwner {
  readonly pid: number;
  readonly host?: string;
  readonly boot?: string;
  readonly ns?: string;
  readonly start?: string;
  readonly nonce?: string;
  /** When the lock was taken (ms since the epoch), for messages only. */
  readonly at?: number;
}

/** Whether a lock's writer runs: `unknown` when this process cannot tell (another machine). */
export type OwnerLiveness = 'alive' | 'dead' | 'unknown';

interface Identity {
  readonly host: string;
  readonly boot: string | undefined;
  readonly ns: string | undefined;
  readonly start: string | undefined;
}

let self: Identity | undefined;
/** Nonces of the locks this process holds or is taking: its own locks with another nonce are left over. */
const inUse = new Set<string>();

/** This process's identity (read once: a few bytes from /proc). */
function identity(): Identity {
  self ??= {
    host: hostname(),
    boot: readText('/proc/sys/kernel/random/boot_id'),
    ns: readLink('/proc/self/ns/pid'),
    start: procStat(readText('/proc/self/stat'))?.start,
  };
  return self;
}

/**
 * A new owner record for a lock this process is about to take; its nonce counts as in use until
 * {@link releaseOwner}.
 */
export function newOwner(): LockOwner {
  const { host, boot, ns, start } = identity();
  const nonce = randomBytes(9).toString('base64url');
  inUse.add(nonce);
  return { pid: process.pid, host, boot, ns, start, nonce, at: Date.now() };
}

/** Ends an owner record's use: a lock still carrying it is from now on left over. */
export function releaseOwner(owner: LockOwner): void {
  if (owner.nonce !== undefined) inUse.delete(owner.nonce);
}

/** Parses a lock file's content; undefined when it names no pid (torn or foreign). */
export function parseOwner(text: string): LockOwner | undefined {
  try {
    const raw = JSON.parse(text) as Record<string, unknown> | null;
    if (typeof raw?.['pid'] !== 'number' || !Number.isSafeInteger(raw['pid']) || raw['pid'] <= 0) return undefined;
    const str = (key: string) => (typeof raw[key] === 'string' ? raw[key] : undefined);
    return {
      pid: raw['pid'],
      host: str('host'),
      boot: str('boot'),
      ns: str('ns'),
      start: str('start'),
      nonce: str('nonce'),
      at: typeof raw['at'] === 'number' ? raw['at'] : undefined,
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether the process that wrote `owner` still runs. Decided only on the same machine and pid
 * namespace (same host name, boot id and namespace); elsewhere `unknown`, never `dead`: a lock is
 * broken only when its writer is certainly gone. Dead: no process has the pid (`ESRCH`), or it is
 * a zombie, or it started at another time (the pid was reused), or it is this very process and
 * the lock's nonce is not one of its current locks (a lock it failed to remove). Records without
 * a host (written by rxscope versions before the nonce) are judged by their pid on this machine.
 *
 * @example
 * ```ts
 * const owner = parseOwner(await readFile(lockFile, 'utf8'));
 * if (owner && (await ownerLiveness(owner)) === 'dead') breakLock(lockFile);
 * ```
 */
export async function ownerLiveness(owner: LockOwner): Promise<OwnerLiveness> {
  const me = identity();
  if (owner.host !== undefined && owner.host !== me.host) return 'unknown';
  if (differ(owner.boot, me.boot) || differ(owner.ns, me.ns)) return 'unknown';
  if (owner.pid === process.pid) {
    if (owner.host === undefined || differ(owner.start, me.start)) return 'dead'; // an earlier process with this pid
    return owner.nonce !== undefined && inUse.has(owner.nonce) ? 'alive' : 'dead';
  }
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return 'dead';
    // EPERM: a process of another user has the pid; its start time still tells.
  }
  const stat = procStat(await readFile(`/proc/${owner.pid}/stat`, 'utf8').catch(() => undefined));
  if (stat === undefined) return 'alive'; // no /proc: the pid is taken, so assume it is the writer
  if (stat.state === 'Z' || stat.state === 'X') return 'dead';
  return differ(owner.start, stat.start) ? 'dead' : 'alive';
}

/** Describes an owner for messages: `pid 123 on host "web-1"`. */
export function describeOwner(owner: LockOwner | undefined): string {
  if (owner === undefined) return 'a writer that left no readable owner';
  const since = owner.at === undefined ? '' : `, taken ${new Date(owner.at).toISOString()}`;
  return `pid ${owner.pid}${owner.host === undefined ? '' : ` on host "${owner.host}"`}${since}`;
}

/** True when both are known and differ (an unknown value decides nothing). */
function differ(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && a !== b;
}

/** The state and start time of /proc/<pid>/stat (the name in parentheses may hold spaces and parentheses). */
function procStat(text: string | undefined): { state: string; start: string } | undefined {
  if (text === undefined) return undefined;
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, start] = [fields[0], fields[19]]; // fields 3 and 22 of proc(5)
  return state !== undefined && start !== undefined ? { state, start } : undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
