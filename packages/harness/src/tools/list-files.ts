import { z } from 'zod';
import { defineTool, type Tool } from '@rxscope/core';
import { type WorkspaceFileSystem, count } from '../workspace/index.js';

const input = z.object({
  path: z.string().optional().describe('Folder to list, relative to the workspace root. Default: the root.'),
});

/**
 * `list_files {path?}`: the entries of one folder of the workspace (folders end in `/`, files
 * show their size, symbolic links are marked). At most `maxEntries` (default 1,000).
 * Read-only and concurrency-safe.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [listFilesTool(new LocalFileSystem('./ws'))] });
 * ```
 */
export function listFilesTool(
  fs: WorkspaceFileSystem,
  options: { readonly maxEntries?: number } = {},
): Tool<z.output<typeof input>> {
  const max = options.maxEntries ?? 1000;
  return defineTool({
    name: 'list_files',
    description: 'List the files and folders in one folder of the workspace (not recursive; use glob_files to search).',
    input,
    readOnly: true,
    execute: async ({ path = '.' }) => {
      const entries = await fs.list(path);
      const folder = await fs.resolve(path);
      if (!entries.length) return `${folder === '.' ? 'The workspace' : folder} is empty.`;
      const lines = entries.slice(0, max).map((e) => {
        const name = folder === '.' ? e.path : e.path.slice(folder.length + 1);
        if (e.type === 'directory') return `${name}/`;
        if (e.type === 'file') return `${name}  (${count(e.size ?? 0, 'byte')})`;
        return `${name}  (${e.type === 'symlink' ? 'symbolic link' : 'special file'})`;
      });
      if (entries.length > max) lines.push(`[${count(entries.length - max, 'more entry', 'more entries')} not shown]`);
      return lines.join('\n');
    },
  });
}
