import { RxscopeError } from '@rxscope/core';

/**
 * What {@link FileTooLargeError} is built from.
 *
 * @example
 * ```ts
 * throw new FileTooLargeError({ path: 'data.csv', maxBytes: 1 << 20, size: 5 << 20, reader: 'my_tool', advice: 'Read a sample.' });
 * ```
 */
export interface FileTooLargeErrorOptions {
  /** The file, as the caller named it. */
  readonly path: string;
  /** The limit of the read, in bytes. */
  readonly maxBytes: number;
  /** The size found: the file's size when known, else "more than `maxBytes`". */
  readonly size?: number;
  /** What the read was for (`edit_file`, `this read`). Default `this read`. */
  readonly reader?: string;
  /** What to do instead, one sentence. Default: search it with grep_files. */
  readonly advice?: string;
}

const bytes = (n: number): string => `${n.toLocaleString('en-US')} byte${n === 1 ? '' : 's'}`;

/**
 * A file was larger than the read allowed (`code: 'file_too_large'`). The file system checks the
 * limit on the read itself (it reads at most one byte past it), so a file that grows after a
 * size check, or a sparse file of a terabyte, never comes into memory. Tools turn it into an
 * `error` result whose text names the file, its size, the limit and what to do.
 *
 * @example
 * ```ts
 * try {
 *   await fs.readFile('logs/huge.log', { maxBytes: 1 << 20 });
 * } catch (e) {
 *   if (e instanceof FileTooLargeError) console.log(e.path, e.size, e.maxBytes);
 * }
 * ```
 */
export class FileTooLargeError extends RxscopeError {
  override readonly name = 'FileTooLargeError';
  readonly code = 'file_too_large';
  readonly path: string;
  readonly maxBytes: number;
  /** The file's size when known; undefined when only "over the limit" is known (it grew while read). */
  readonly size: number | undefined;

  constructor(options: FileTooLargeErrorOptions) {
    const { path, maxBytes, size } = options;
    const found = size !== undefined && size > maxBytes ? `is ${bytes(size)}` : `holds more than ${bytes(maxBytes)}`;
    super(
      `"${path}" ${found}, over the limit of ${options.reader ?? 'this read'} (${bytes(maxBytes)}). ` +
        (options.advice ?? 'Search it with grep_files instead.'),
    );
    this.path = path;
    this.maxBytes = maxBytes;
    this.size = size !== undefined && size > maxBytes ? size : undefined;
  }
}
