// Finding 3 of issue #28: reads were bounded, if at all, by a size taken before the read. The
// workspace file system now bounds the read itself: at most one byte past `maxBytes` is read.
import { open, stat } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { peakMemoryGrowth, sparseFile } from '../__tests__/probes.js';
import { tempDir } from '../__tests__/helpers.js';
import { HarnessOptionError } from '../options/harness-option-error.js';
import { readUpTo } from './bounded-read.js';
import { FileTooLargeError } from './file-too-large-error.js';
import { LocalFileSystem } from './local-file-system.js';

const GB = 1024 * 1024 * 1024;
const MB = 1024 * 1024;

const tooLarge = async (p: Promise<unknown>): Promise<FileTooLargeError> => {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileTooLargeError);
  expect((error as FileTooLargeError).code).toBe('file_too_large');
  return error as FileTooLargeError;
};

describe('bounded reads of the workspace file system', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    dir.cleanup();
  });

  it('reads a file of exactly maxBytes and refuses one byte more, naming the file, its size and the limit', async () => {
    writeFileSync(join(dir.path, 'ten.txt'), '0123456789');
    expect(Buffer.from(await fs.readFile('ten.txt', { maxBytes: 10 })).toString()).toBe('0123456789');
    const error = await tooLarge(fs.readFile('ten.txt', { maxBytes: 9 }));
    expect(error.message).toBe(
      '"ten.txt" is 10 bytes, over the limit of this read (9 bytes). Search it with grep_files instead.',
    );
    expect(error).toMatchObject({ path: 'ten.txt', size: 10, maxBytes: 9 });
    expect(Buffer.from(await fs.readFile('ten.txt', { maxBytes: 4, truncate: true })).toString()).toBe('0123');
  });

  it('refuses a sparse 1 GB file at once, without bringing it into memory (default bound 64 MiB)', async () => {
    sparseFile(join(dir.path, 'huge.bin'), GB);
    const { result, growth } = await peakMemoryGrowth(() => tooLarge(fs.readFile('huge.bin')));
    expect(growth).toBeLessThan(100 * MB); // the file never came into memory
    expect(result.message).toMatch(
      /"huge\.bin" is 1,073,741,824 bytes, over the limit of this read \(67,108,864 bytes\)/,
    );
  });

  it('bounds the read itself when the file is larger than its size said (it grew after the check)', async () => {
    sparseFile(join(dir.path, 'growing.log'), GB);
    writeFileSync(join(dir.path, 'small.txt'), 'x');
    const small = await stat(join(dir.path, 'small.txt'));
    // The descriptor's own stat says 1 byte, as it did before the file grew.
    const probe = await open(join(dir.path, 'small.txt'));
    const handleClass = Object.getPrototypeOf(probe) as { stat: () => Promise<unknown> };
    await probe.close();
    jest.spyOn(handleClass, 'stat').mockResolvedValue(small);
    const { result, growth } = await peakMemoryGrowth(() => tooLarge(fs.readFile('growing.log', { maxBytes: MB })));
    expect(growth).toBeLessThan(100 * MB); // the file never came into memory
    expect(result.message).toBe(
      '"growing.log" holds more than 1,048,576 bytes, over the limit of this read (1,048,576 bytes). Search it with grep_files instead.',
    );
    expect(result.size).toBeUndefined();
    const head = await fs.readFile('growing.log', { maxBytes: 1000, truncate: true });
    expect(head.byteLength).toBe(1000);
  });

  it('reads at most limit + 1 bytes from a file that never ends', async () => {
    let served = 0;
    const endless = {
      read: async (buffer: Buffer, offset: number, length: number) => {
        buffer.fill(97, offset, offset + length);
        served += length;
        return { bytesRead: length, buffer };
      },
    };
    const { bytes, more } = await readUpTo(endless as never, 100_000, 10);
    expect(more).toBe(true);
    expect(bytes.byteLength).toBe(100_000);
    expect(served).toBe(100_001);
  });

  it('refuses an unknown read option by name', async () => {
    writeFileSync(join(dir.path, 'a.txt'), 'a');
    const error = await fs.readFile('a.txt', { maxByte: 5 } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HarnessOptionError);
    expect((error as HarnessOptionError).code).toBe('unknown_option');
    expect((error as Error).message).toMatch(/unknown option "maxByte" of readFile; did you mean "maxBytes"\?/);
    await expect(fs.readFile('a.txt', { maxBytes: -1 })).rejects.toThrow(
      /maxBytes must be a whole number of at least 0/,
    );
  });
});
