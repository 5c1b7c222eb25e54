import { z } from 'zod';
import { defineTool, type Tool } from '@rxscope/core';
import { readText } from '../ledger.js';
import { WORKSPACE_LAYOUT, type WorkspaceFileSystem, count, splitLines } from '../../workspace/index.js';

const input = z.object({
  path: z.string().describe('MEMORY.md, or a file under memory/ (as memory_search shows it).'),
  start_line: z.number().int().min(1).optional().describe('First line, from 1. Default 1.'),
  end_line: z.number().int().min(1).optional().describe('Last line (included). Default: the end of the file.'),
});

/** True for `MEMORY.md` and files under `memory/`. */
export function isMemoryPath(path: string): boolean {
  const p = path.replace(/^\.\//, '');
  return p === WORKSPACE_LAYOUT.memory || p.startsWith(`${WORKSPACE_LAYOUT.memoryDir}/`);
}

/**
 * `memory_get {path, start_line?, end_line?}`: lines of a memory file (`MEMORY.md` or a file
 * under `memory/`) with their numbers; any other path is an error result that says which files
 * it reads. At most `maxLines` lines per call (default 400). Read-only and concurrency-safe.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [memorySearchTool(fs), memoryGetTool(fs)] });
 * ```
 */
export function memoryGetTool(
  fs: WorkspaceFileSystem,
  options: { readonly maxLines?: number } = {},
): Tool<z.output<typeof input>> {
  const maxLines = options.maxLines ?? 400;
  return defineTool({
    name: 'memory_get',
    description:
      'Read lines of a memory file (MEMORY.md or a file under memory/), for instance around a memory_search hit.',
    input,
    readOnly: true,
    execute: async ({ path, start_line = 1, end_line }) => {
      // Checked on the resolved path, so `memory/../x` is not taken for a memory file.
      const resolved = await fs.resolve(path);
      if (!isMemoryPath(resolved))
        throw new Error(`memory_get reads MEMORY.md and files under memory/ only, not "${path}".`);
      if (end_line !== undefined && end_line < start_line)
        throw new Error(`end_line (${end_line}) is before start_line (${start_line}).`);
      const text = await readText(fs, resolved);
      if (text === undefined)
        throw new Error(`"${path}" does not exist; memory_search lists the memory files that match.`);
      const lines = splitLines(text);
      if (!lines.length) return `(${path} is empty)`;
      if (start_line > lines.length)
        throw new Error(
          `start_line ${start_line} is past the end of "${path}", which has ${count(lines.length, 'line')}.`,
        );
      const last = Math.min(lines.length, end_line ?? lines.length, start_line - 1 + maxLines);
      const body = lines
        .slice(start_line - 1, last)
        .map((l, i) => `${String(start_line + i).padStart(5)}\t${l}`)
        .join('\n');
      return last < Math.min(lines.length, end_line ?? lines.length) ? `${body}\n[more from line ${last + 1}]` : body;
    },
  });
}
