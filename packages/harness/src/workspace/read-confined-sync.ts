import { closeSync, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, constants } from 'node:fs';
import { resolve, sep } from 'node:path';

/**
 * Reads a small text file of the workspace synchronously, confined like `LocalFileSystem`
 * (real path inside the root, regular file only, the opened descriptor checked). Returns
 * `undefined` when it does not exist or is refused: callers that inject workspace files into a
 * prompt skip what they may not read.
 */
export function readConfinedSync(
  root: string,
  relativePath: string,
  maxBytes: number,
): { text: string; size: number; mtimeMs: number } | undefined {
  let real: string;
  try {
    real = realpathSync(resolve(root, relativePath));
  } catch {
    return undefined;
  }
  if (real !== root && !real.startsWith(root + sep)) return undefined;
  const st = lstatSync(real, { throwIfNoEntry: false });
  if (!st?.isFile()) return undefined;
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    let opened: string | undefined;
    try {
      opened = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      opened = undefined;
    }
    if (opened !== undefined && !opened.startsWith(root + sep)) return undefined;
    const fst = fstatSync(fd);
    if (!fst.isFile()) return undefined;
    const buffer = Buffer.alloc(Math.min(fst.size, maxBytes));
    const n = buffer.length ? readSync(fd, buffer, 0, buffer.length, 0) : 0;
    return { text: buffer.subarray(0, n).toString('utf8'), size: fst.size, mtimeMs: fst.mtimeMs };
  } finally {
    closeSync(fd);
  }
}
