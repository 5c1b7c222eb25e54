import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool, ToolContext } from '@rxscope/core';
import { toolInput, tempDir } from '../__tests__/helpers.js';
import { LocalFileSystem } from '../workspace/local-file-system.js';
import { editFileTool } from './edit-file.js';
import { globFilesTool } from './glob-files.js';
import { grepFilesTool } from './grep-files.js';
import { listFilesTool } from './list-files.js';
import { readFileTool } from './read-file.js';
import { writeFileTool } from './write-file.js';

const toolCtx: ToolContext = {
  signal: new AbortController().signal,
  callId: 'c1',
  idempotencyKey: 'c1',
  agentName: 'a',
  replyId: 'r',
  emit: () => undefined,
  forward: () => undefined,
};
/** Runs a tool as the agent would: arguments validated by its schema, then executed. */
const call = async (tool: Tool, input: unknown): Promise<string> =>
  (await tool.execute!(toolInput(tool, input), toolCtx)) as string;

describe('file tools', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => dir.cleanup());

  describe('read_file', () => {
    it('numbers lines and reads a window with offset (from 1) and limit, saying how to read on', async () => {
      writeFileSync(join(dir.path, 'a.txt'), Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
      const out = await call(readFileTool(fs), { path: 'a.txt', offset: 10, limit: 3 });
      expect(out).toBe('10\tline 10\n11\tline 11\n12\tline 12\n\n[Showing lines 10-12 of 30; read on with offset=13.]');
      expect(await call(readFileTool(fs), { path: 'a.txt', offset: 29 })).toBe('29\tline 29\n30\tline 30\n');
    });

    it('cuts huge lines and caps the result, so a file of a few huge lines reads back in pieces', async () => {
      writeFileSync(join(dir.path, 'big.txt'), `${'x'.repeat(100_000)}\n${'y'.repeat(100_000)}\n${'z'.repeat(10)}\n`);
      const out = await call(readFileTool(fs, { maxLineChars: 1000, maxChars: 5000 }), { path: 'big.txt' });
      expect(out.length).toBeLessThan(5000);
      expect(out).toContain('[line cut: 100,000 characters]');
      expect(out).toContain('3\tzzzzzzzzzz');
      const capped = await call(readFileTool(fs, { maxLineChars: 4000, maxChars: 5000 }), { path: 'big.txt' });
      expect(capped).toContain('Showing lines 1-1 of 3; read on with offset=2.');
    });

    it('refuses binary files, folders, missing files and an offset past the end with a clear message', async () => {
      writeFileSync(join(dir.path, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
      writeFileSync(join(dir.path, 'short.txt'), 'one\n');
      await expect(call(readFileTool(fs), { path: 'img.png' })).rejects.toThrow(/binary file/);
      await expect(call(readFileTool(fs), { path: 'memory' })).rejects.toThrow(/is a folder; use list_files/);
      await expect(call(readFileTool(fs), { path: 'nope.txt' })).rejects.toThrow(/does not exist/);
      await expect(call(readFileTool(fs), { path: 'short.txt', offset: 5 })).rejects.toThrow(
        /past the end of "short.txt", which has 1 line/,
      );
      expect(await call(readFileTool(fs), { path: 'AGENTS.md' })).toBe('(AGENTS.md is empty)');
    });
  });

  describe('write_file and edit_file', () => {
    it('creates and replaces files, creating folders', async () => {
      expect(await call(writeFileTool(fs), { path: 'src/x/a.ts', content: 'a\nb\n' })).toBe(
        'Created src/x/a.ts (4 bytes, 2 lines).',
      );
      expect(await call(writeFileTool(fs), { path: 'src/x/a.ts', content: 'c\n' })).toBe(
        'Replaced src/x/a.ts (2 bytes, 1 line).',
      );
      expect(readFileSync(join(dir.path, 'src/x/a.ts'), 'utf8')).toBe('c\n');
    });

    it('replaces an exact unique match', async () => {
      writeFileSync(join(dir.path, 'a.ts'), 'const a = 1;\nconst b = 2;\n');
      expect(await call(editFileTool(fs), { path: 'a.ts', old_string: 'b = 2', new_string: 'b = 3' })).toBe(
        'Replaced 1 occurrence in a.ts.',
      );
      expect(readFileSync(join(dir.path, 'a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
    });

    it('explains a missing match and an ambiguous one, with the count and the lines', async () => {
      writeFileSync(join(dir.path, 'a.ts'), 'x = 1\ny = 2\nx = 1\n');
      await expect(call(editFileTool(fs), { path: 'a.ts', old_string: 'z = 9', new_string: 'z' })).rejects.toThrow(
        /old_string was not found in "a.ts" \(0 occurrences\)/,
      );
      await expect(call(editFileTool(fs), { path: 'a.ts', old_string: 'x = 1', new_string: 'x = 5' })).rejects.toThrow(
        /old_string occurs 2 times in "a.ts" \(lines 1, 3\).*replace_all: true/,
      );
      await expect(call(editFileTool(fs), { path: 'a.ts', old_string: '  y = 2', new_string: 'y' })).rejects.toThrow(
        /check indentation/,
      );
      expect(
        await call(editFileTool(fs), { path: 'a.ts', old_string: 'x = 1', new_string: 'x = 5', replace_all: true }),
      ).toBe('Replaced 2 occurrences in a.ts.');
      expect(readFileSync(join(dir.path, 'a.ts'), 'utf8')).toBe('x = 5\ny = 2\nx = 5\n');
    });

    it('keeps "$" sequences in the new text literally', async () => {
      writeFileSync(join(dir.path, 'a.ts'), 'price\n');
      await call(editFileTool(fs), { path: 'a.ts', old_string: 'price', new_string: "$& costs $1 and $'" });
      expect(readFileSync(join(dir.path, 'a.ts'), 'utf8')).toBe("$& costs $1 and $'\n");
    });
  });

  describe('list_files, glob_files, grep_files', () => {
    beforeEach(async () => {
      await fs.writeFile('.gitignore', 'node_modules/\n');
      await fs.writeFile('src/main.ts', 'export function main() {\n  return helper();\n}\n');
      await fs.writeFile('src/helper.ts', 'export function helper() {\n  return 42;\n}\n');
      await fs.writeFile('node_modules/dep/index.js', 'function helper() {}\n');
      writeFileSync(join(dir.path, 'src', 'blob.bin'), Buffer.from([0, 1, 2, 104, 101, 108, 112, 101, 114]));
    });

    it('lists one folder with folders marked and sizes', async () => {
      const out = await call(listFilesTool(fs), { path: 'src' });
      expect(out.split('\n')).toEqual(['blob.bin  (9 bytes)', 'helper.ts  (42 bytes)', 'main.ts  (46 bytes)']);
      expect(await call(listFilesTool(fs), {})).toContain('src/');
    });

    it('globs, leaving out what .gitignore excludes', async () => {
      expect(await call(globFilesTool(fs), { pattern: '**/*.{ts,js}' })).toBe('src/helper.ts\nsrc/main.ts');
      expect(await call(globFilesTool(fs), { pattern: '*.py' })).toBe('No files match "*.py".');
    });

    it('greps text files by regular expression, skipping binary and ignored files', async () => {
      const out = await call(grepFilesTool(fs), { pattern: 'function\\s+helper' });
      expect(out).toBe('src/helper.ts:1: export function helper() {\n[1 match in 1 file]');
      expect(await call(grepFilesTool(fs), { pattern: 'return', glob: '**/main.ts' })).toContain(
        'src/main.ts:2:   return helper();',
      );
      await expect(call(grepFilesTool(fs), { pattern: '(unclosed' })).rejects.toThrow(/not a valid regular expression/);
    });
  });
});
