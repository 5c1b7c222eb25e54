import type { FileHandle } from 'node:fs/promises';

/** What {@link readUpTo} read. */
export interface BoundedRead {
  /** The first bytes of the file, at most the limit. */
  readonly bytes: Uint8Array;
  /** True when the file holds more than the limit. */
  readonly more: boolean;
}

/**
 * Reads an open file from its start, at most `limit + 1` bytes whatever it holds: the bound is on
 * the read itself, so a file that grew since `sizeHint` was taken (or lies about its size) never
 * brings more than the limit into memory. The buffer starts at the hinted size and doubles while
 * the file goes on.
 *
 * @example
 * ```ts
 * const { bytes, more } = await readUpTo(handle, 1 << 20, (await handle.stat()).size);
 * if (more) throw new FileTooLargeError({ path, maxBytes: 1 << 20 });
 * ```
 */
export async function readUpTo(handle: FileHandle, limit: number, sizeHint: number): Promise<BoundedRead> {
  const cap = limit + 1;
  let buffer = Buffer.alloc(Math.min(cap, Math.max(sizeHint + 1, 8192)));
  let read = 0;
  for (;;) {
    if (read === buffer.length) {
      if (read >= cap) break;
      const bigger = Buffer.alloc(Math.min(cap, buffer.length * 2));
      buffer.copy(bigger, 0, 0, read);
      buffer = bigger;
    }
    const { bytesRead } = await handle.read(buffer, read, buffer.length - read, read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return read > limit
    ? { bytes: buffer.subarray(0, limit), more: true }
    : { bytes: buffer.subarray(0, read), more: false };
}
