import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CGROUP_PREFIX, type CgroupController, type CgroupParent, cgroupParents } from './cgroup-parents.js';

interface Folder {
  readonly dir: string;
  readonly version: 1 | 2;
  readonly controllers: ReadonlySet<CgroupController>;
}

/** Time given to a killed cgroup's processes to be gone before its folder can be removed. */
const REMOVE_RETRIES = 40;
const REMOVE_RETRY_MS = 50;

let made = 0;

/** Folders whose removal is still being retried: tried once more when the agent's process exits. */
const pending = new Set<string>();
let exitHook = false;
function removeOnExit(dir: string): void {
  pending.add(dir);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const left of pending) {
      try {
        rmdirSync(left);
      } catch {
        // a later agent sweeps it (cgroupParents)
      }
    }
  });
}

const write = (file: string, value: string) => writeFileSync(file, value);
const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};
const counter = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

/** Writes one controller's limit into `dir`; throws when the controller cannot be used there. */
function setLimit(dir: string, version: 1 | 2, controller: CgroupController, value: number): void {
  if (controller === 'pids') return write(join(dir, 'pids.max'), String(value));
  if (version === 2) {
    write(join(dir, 'memory.max'), String(value));
    // No swap either: else a memory hog moves to swap instead of being stopped.
    if (existsSync(join(dir, 'memory.swap.max'))) write(join(dir, 'memory.swap.max'), '0');
    return;
  }
  write(join(dir, 'memory.limit_in_bytes'), String(value));
  try {
    write(join(dir, 'memory.memsw.limit_in_bytes'), String(value));
  } catch {
    // no swap accounting on this kernel: memory.limit_in_bytes alone
  }
}

/**
 * The cgroup(s) of one command: made before it starts (the launcher writes its own pid into
 * {@link procsFiles}, so every process the command starts is in them), holding its process and
 * memory limits; read after it ends (did it hit a limit?), then emptied and removed.
 *
 * @example
 * ```ts
 * const cgroup = CommandCgroup.create({ processes: 20, memoryBytes: 2 ** 30 });
 * // spawn: sh -c 'echo $$ > <each procsFile>; exec ...'
 * cgroup?.exceeded(); // { processes: true, memory: false }
 * cgroup?.remove();
 * ```
 */
export class CommandCgroup {
  private constructor(private readonly folders: readonly Folder[]) {}

  /**
   * Makes the command's cgroup for each limit given (`null`: none) that a controller of this
   * machine can hold; `undefined` when none can (no cgroups, not writable): the caller falls back.
   */
  static create(limits: {
    readonly processes: number | null;
    readonly memoryBytes: number | null;
  }): CommandCgroup | undefined {
    const parents = cgroupParents();
    const name = `${CGROUP_PREFIX}${process.pid}-${++made}`;
    const wanted: [CgroupController, number][] = [];
    if (limits.processes !== null && parents.pids) wanted.push(['pids', limits.processes]);
    if (limits.memoryBytes !== null && parents.memory) wanted.push(['memory', limits.memoryBytes]);
    const folders = new Map<string, { version: 1 | 2; controllers: Set<CgroupController> }>();
    for (const [controller, value] of wanted) {
      const parent = parents[controller] as CgroupParent;
      const dir = join(parent.dir, name);
      try {
        if (!folders.has(dir)) mkdirSync(dir);
        const folder = folders.get(dir) ?? { version: parent.version, controllers: new Set() };
        folders.set(dir, folder);
        setLimit(dir, parent.version, controller, value);
        folder.controllers.add(controller);
      } catch {
        // This controller is not usable here (not writable, not delegated): the command runs without it.
        const folder = folders.get(dir);
        if (folder && folder.controllers.size === 0) {
          folders.delete(dir);
          CommandCgroup.rmdir(dir);
        }
      }
    }
    if (folders.size === 0) return undefined;
    return new CommandCgroup([...folders].map(([dir, f]) => ({ dir, ...f })));
  }

  /** Whether the command's memory / process count is bounded by this cgroup. */
  holds(controller: CgroupController): boolean {
    return this.folders.some((f) => f.controllers.has(controller));
  }

  /** The `cgroup.procs` files the launcher writes its pid into. */
  get procsFiles(): string[] {
    return this.folders.map((f) => join(f.dir, 'cgroup.procs'));
  }

  /** Which limits the command hit: a fork refused (processes), a process killed for memory. */
  exceeded(): { readonly processes: boolean; readonly memory: boolean } {
    let processes = false;
    let memory = false;
    for (const { dir, version, controllers } of this.folders) {
      if (controllers.has('pids')) processes ||= counter(read(join(dir, 'pids.events')), 'max') > 0;
      if (controllers.has('memory')) {
        const events = read(join(dir, version === 2 ? 'memory.events' : 'memory.oom_control'));
        memory ||= counter(events, 'oom_kill') > 0;
      }
    }
    return { processes, memory };
  }

  /** Kills every process still in the command's cgroup (a `setsid` grandchild included). */
  kill(): void {
    for (const { dir, version } of this.folders) {
      if (version === 2 && existsSync(join(dir, 'cgroup.kill'))) {
        try {
          write(join(dir, 'cgroup.kill'), '1');
          continue;
        } catch {
          // fall through to killing one by one
        }
      }
      // A process may fork while the list is read: repeat until the list is empty.
      for (let round = 0; round < 50; round++) {
        const pids = read(join(dir, 'cgroup.procs')).split('\n').filter(Boolean).map(Number);
        if (pids.length === 0) break;
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone already
          }
        }
      }
    }
  }

  /** Kills what is left and removes the cgroup (retried briefly while killed processes exit). */
  remove(): void {
    this.kill();
    for (const { dir } of this.folders) CommandCgroup.rmdir(dir);
  }

  private static rmdir(dir: string, attempt = 0): void {
    try {
      rmdirSync(dir);
      pending.delete(dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EBUSY' || attempt >= REMOVE_RETRIES) return; // a later agent sweeps it (cgroupParents)
      removeOnExit(dir);
      setTimeout(() => CommandCgroup.rmdir(dir, attempt + 1), REMOVE_RETRY_MS).unref();
    }
  }
}
