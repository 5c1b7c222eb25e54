import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * The absolute path of an executable found on `PATH` (or `name` itself when absolute and
 * executable); `undefined` when there is none. The sandboxes use it to learn whether the
 * machine has `setpriv`, `unshare` and `prlimit` (util-linux).
 *
 * @example
 * ```ts
 * findExecutable('prlimit'); // '/usr/bin/prlimit' on Linux, undefined on macOS
 * ```
 */
export function findExecutable(name: string): string | undefined {
  const candidates = isAbsolute(name)
    ? [name]
    : (process.env['PATH'] ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, name));
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      if (statSync(path).isFile()) return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** True when the agent runs as root (uid 0: exempt from RLIMIT_NPROC). */
export const isRoot = (): boolean => process.getuid?.() === 0;
