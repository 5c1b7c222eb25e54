import { z } from 'zod';
import { defineTool, type Tool } from '@rxscope/core';
import { type WorkspaceFileSystem, count, splitLines } from '../workspace/index.js';

const input = z.object({
  path: z.string().describe('File path, relative to the workspace root. Missing folders are created.'),
  content: z.string().describe('The whole new content of the file.'),
});

/**
 * `write_file {path, content}`: creates or replaces a file of the workspace (atomically;
 * missing folders are created). Not read-only: denied in plan mode, asks in `strict` mode.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [writeFileTool(new LocalFileSystem('./ws'))] });
 * ```
 */
export function writeFileTool(fs: WorkspaceFileSystem): Tool<z.output<typeof input>> {
  return defineTool({
    name: 'write_file',
    description:
      'Create a file of the workspace, or replace its whole content. To change part of a file, use edit_file.',
    input,
    execute: async ({ path, content }) => {
      const written = await fs.writeFile(path, content);
      const what = `${count(Buffer.byteLength(content), 'byte')}, ${count(splitLines(content).length, 'line')}`;
      return `${written.created ? 'Created' : 'Replaced'} ${written.path} (${what}).`;
    },
  });
}
