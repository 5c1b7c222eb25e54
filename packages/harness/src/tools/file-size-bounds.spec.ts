// Finding 3 of issue #28: edit_file read a file of any size into memory (a sparse 1 GB file grew
// the agent by 1 GB), and read_file read whatever the file held when it grew between its size
// check and its read. Both now read through the file system with their bound on the read.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool, ToolContext } from '@rxscope/core';
import { toolInput, tempDir } from '../__tests__/helpers.js';
import { peakMemoryGrowth, sparseFile } from '../__tests__/probes.js';
import { HarnessOptionError } from '../options/harness-option-error.js';
import { FileTooLargeError } from '../workspace/file-too-large-error.js';
import { LocalFileSystem } from '../workspace/local-file-system.js';
import type { WorkspaceFileSystem, WorkspaceReadOptions } from '../workspace/workspace-file-system.js';
import { editFileTool } from './edit-file.js';
import { grepFilesTool } from './grep-files.js';
import { readFileTool } from './read-file.js';

const GB = 1024 * 1024 * 1024;
const MB = 1024 * 1024;

const ctx: ToolContext = {
  signal: new AbortController().signal,
  callId: 'c1',
  idempotencyKey: 'c1',
  agentName: 'a',
  replyId: 'r',
  emit: () => undefined,
  forward: () => undefined,
};
const call = async (tool: Tool, input: unknown): Promise<string> =>
  (await tool.execute!(toolInput(tool, input), ctx)) as string;
const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

/**
 * The workspace as it looks to a tool whose file grew after its size was taken: `stat` reports the
 * size the file had (`staleSizes`), reads see the file as it is now. Records each read's options.
 */
function staleStat(
  fs: LocalFileSystem,
  staleSizes: Record<string, number>,
): WorkspaceFileSystem & { reads: WorkspaceReadOptions[] } {
  const reads: WorkspaceReadOptions[] = [];
  return {
    root: fs.root,
    reads,
    resolve: (p) => fs.resolve(p),
    readFile: (p, o) => (reads.push(o ?? {}), fs.readFile(p, o)),
    writeFile: (p, c) => fs.writeFile(p, c),
    removeFile: (p) => fs.removeFile(p),
    stat: async (p) => {
      const st = await fs.stat(p);
      return st && staleSizes[st.path] !== undefined ? { ...st, size: staleSizes[st.path]! } : st;
    },
    list: (p) => fs.list(p),
    glob: (p, o) => fs.glob(p, o),
  };
}

describe('file tools bound what they read', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => dir.cleanup());

  it('edit_file refuses a sparse 1 GB file without bringing it into memory', async () => {
    sparseFile(join(dir.path, 'huge.txt'), GB);
    const { result, growth } = await peakMemoryGrowth(() =>
      failure(call(editFileTool(fs), { path: 'huge.txt', old_string: 'a', new_string: 'b' })),
    );
    expect(growth).toBeLessThan(100 * MB); // the file never came into memory
    expect(result).toBeInstanceOf(FileTooLargeError);
    expect((result as Error).message).toBe(
      '"huge.txt" is 1,073,741,824 bytes, over the limit of edit_file (20,971,520 bytes). ' +
        'Change it with a shell command (sed, a script) if you have execute, or split it into smaller files.',
    );
  });

  it('edit_file takes its bound as an option and still edits files within it', async () => {
    writeFileSync(join(dir.path, 'a.txt'), 'x'.repeat(2000) + '\nneedle\n');
    const small = editFileTool(fs, { maxFileBytes: 1000 });
    expect(await failure(call(small, { path: 'a.txt', old_string: 'needle', new_string: 'pin' }))).toMatchObject({
      code: 'file_too_large',
    });
    expect(await call(editFileTool(fs), { path: 'a.txt', old_string: 'needle', new_string: 'pin' })).toBe(
      'Replaced 1 occurrence in a.txt.',
    );
    expect(readFileSync(join(dir.path, 'a.txt'), 'utf8').endsWith('\npin\n')).toBe(true);
    expect(() => editFileTool(fs, { maxBytes: 5 } as never)).toThrow(HarnessOptionError);
  });

  it('read_file of a file that grew to 1 GB after its size was checked reads no more than its bound', async () => {
    sparseFile(join(dir.path, 'grown.log'), GB);
    const stale = staleStat(fs, { 'grown.log': 10 });
    const { result, growth } = await peakMemoryGrowth(() => failure(call(readFileTool(stale), { path: 'grown.log' })));
    expect(growth).toBeLessThan(100 * MB); // the file never came into memory
    expect(result).toBeInstanceOf(FileTooLargeError);
    expect((result as Error).message).toBe(
      '"grown.log" is 1,073,741,824 bytes, over the limit of read_file (20,971,520 bytes). Search it with grep_files.',
    );
    expect(stale.reads).toEqual([{ maxBytes: 20 * MB }]);
  });

  it('read_file still reads a file within its bound, and refuses one over it by its size', async () => {
    writeFileSync(join(dir.path, 'a.txt'), 'one\ntwo\n');
    expect(await call(readFileTool(fs, { maxFileBytes: 8 }), { path: 'a.txt' })).toBe('1\tone\n2\ttwo\n');
    expect(await failure(call(readFileTool(fs, { maxFileBytes: 7 }), { path: 'a.txt' }))).toMatchObject({
      code: 'file_too_large',
      size: 8,
      message: '"a.txt" is 8 bytes, over the limit of read_file (7 bytes). Search it with grep_files.',
    });
  });

  it('grep_files skips a file that grew past its bound after the check, and says so', async () => {
    sparseFile(join(dir.path, 'grown.log'), GB);
    writeFileSync(join(dir.path, 'small.txt'), 'needle\n');
    const stale = staleStat(fs, { 'grown.log': 10 });
    const { result, growth } = await peakMemoryGrowth(() => call(grepFilesTool(stale), { pattern: 'needle' }));
    expect(growth).toBeLessThan(100 * MB); // the file never came into memory
    expect(result).toBe('small.txt:1: needle\n[1 match in 1 file]\n[1 file over 5,242,880 bytes not searched]');
  });
});
