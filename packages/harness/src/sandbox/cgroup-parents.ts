import { readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

/** A cgroup controller a command's own cgroup can use. */
export type CgroupController = 'pids' | 'memory';

/** Where the cgroups of commands are made for one controller: under the agent's own cgroup. */
export interface CgroupParent {
  readonly version: 1 | 2;
  /** The agent process's own cgroup folder in that hierarchy. */
  readonly dir: string;
}

/** The parents found for each controller (absent: that controller cannot be used here). */
export type CgroupParents = Readonly<Partial<Record<CgroupController, CgroupParent>>>;

/** Prefix of the cgroups the sandboxes make: `rxscope-<agent pid>-<n>`. */
export const CGROUP_PREFIX = 'rxscope-';

interface Mount {
  readonly root: string;
  readonly mountPoint: string;
  readonly fsType: string;
  readonly superOptions: readonly string[];
}

const unescape = (field: string) =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

function cgroupMounts(): Mount[] {
  const mounts: Mount[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const fields = before.split(' ');
    const [fsType, , superOptions] = after.split(' ');
    if (fsType !== 'cgroup' && fsType !== 'cgroup2') continue;
    mounts.push({
      root: unescape(fields[3] ?? '/'),
      mountPoint: unescape(fields[4] ?? ''),
      fsType,
      superOptions: (superOptions ?? '').split(','),
    });
  }
  return mounts;
}

/** The folder of `path` (a cgroup path of /proc/self/cgroup) under a mount, if the mount holds it. */
function folderOf(mount: Mount, path: string): string | undefined {
  if (mount.root === '/') return join(mount.mountPoint, path);
  if (path === mount.root || path.startsWith(`${mount.root}/`))
    return join(mount.mountPoint, path.slice(mount.root.length));
  return undefined;
}

function find(
  controller: CgroupController,
  mounts: readonly Mount[],
  lines: readonly string[],
): CgroupParent | undefined {
  for (const line of lines) {
    const first = line.indexOf(':');
    const second = line.indexOf(':', first + 1);
    if (first < 0 || second < 0) continue;
    const [id, controllers, path] = [line.slice(0, first), line.slice(first + 1, second), line.slice(second + 1)];
    if (id !== '0' && controllers.split(',').includes(controller)) {
      const mount = mounts.find((m) => m.fsType === 'cgroup' && m.superOptions.includes(controller));
      const dir = mount && folderOf(mount, path);
      if (dir) return { version: 1, dir };
    }
  }
  // cgroup v2: only where the controller is already delegated to the agent's cgroup's children
  // (enabling it would change the agent's own cgroup, which is not the sandbox's to change).
  const unified = lines.find((l) => l.startsWith('0::'));
  const mount = mounts.find((m) => m.fsType === 'cgroup2');
  const dir = unified && mount && folderOf(mount, unified.slice(3));
  if (!dir) return undefined;
  try {
    const enabled = readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
    return enabled.includes(controller) ? { version: 2, dir } : undefined;
  } catch {
    return undefined;
  }
}

/** True while a process with this pid exists. */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes empty cgroups left by agents that were killed before they could remove them. */
function sweepStale(dir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const match = new RegExp(`^${CGROUP_PREFIX}(\\d+)-\\d+$`).exec(entry);
    if (!match || exists(Number(match[1]))) continue;
    try {
      rmdirSync(join(dir, entry));
    } catch {
      // still has processes, or not ours to remove
    }
  }
}

let found: CgroupParents | undefined;

/**
 * The cgroup folders under which a command's own cgroup can be made, per controller, found once
 * per process from /proc/self/mountinfo and /proc/self/cgroup (cgroup v1, or v2 where the
 * controller is delegated). Whether the agent may write there shows only when a command's cgroup
 * is made; a failure then makes that command run without it.
 *
 * @example
 * ```ts
 * cgroupParents().memory; // { version: 1, dir: '/sys/fs/cgroup/memory/user.slice' } or undefined
 * ```
 */
export function cgroupParents(): CgroupParents {
  if (found) return found;
  let parents: Partial<Record<CgroupController, CgroupParent>> = {};
  try {
    const mounts = cgroupMounts();
    const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n').filter(Boolean);
    for (const controller of ['pids', 'memory'] as const) {
      const parent = find(controller, mounts, lines);
      if (parent) parents[controller] = parent;
    }
  } catch {
    parents = {}; // no /proc (not Linux): no cgroups
  }
  for (const dir of new Set(Object.values(parents).map((p) => p.dir))) sweepStale(dir);
  found = parents;
  return found;
}
