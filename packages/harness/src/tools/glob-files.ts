import { z } from 'zod';
import { defineTool, type Tool } from '@rxscope/core';
import { checkOptions, integerAtLeast } from '../options/index.js';
import { type WorkspaceFileSystem, count } from '../workspace/index.js';

const input = z.object({
  pattern: z
    .string()
    .describe('Glob pattern: * ** ? [a-z] {a,b}, e.g. "**/*.ts" or "src/**/test_*.{py,pyi}" (no extglobs).'),
  path: z.string().optional().describe('Folder to search from, relative to the workspace root. Default: the root.'),
});

/**
 * `glob_files {pattern, path?}`: files of the workspace matching a glob pattern (`*`, `**`, `?`,
 * `[…]`, `{a,b}`; `.gitignore` rules and `.git/` are honoured), as paths relative to the root,
 * sorted. At most `maxResults` (default 1,000). The pattern is matched in linear time (see
 * `WorkspaceFileSystem.glob`): an extglob or a range is an error result saying what is supported.
 * Read-only and concurrency-safe.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [globFilesTool(new LocalFileSystem('./ws'))] });
 * ```
 */
export function globFilesTool(
  fs: WorkspaceFileSystem,
  options: { readonly maxResults?: number } = {},
): Tool<z.output<typeof input>> {
  checkOptions('globFilesTool', options, { maxResults: integerAtLeast(1) });
  const max = options.maxResults ?? 1000;
  return defineTool({
    name: 'glob_files',
    description:
      'Find files of the workspace by glob pattern (e.g. "**/*.ts"). Files ignored by .gitignore are left out.',
    input,
    readOnly: true,
    execute: async ({ pattern, path }) => {
      const found = await fs.glob(pattern, { ...(path !== undefined ? { cwd: path } : {}), limit: max + 1 });
      if (!found.length) return `No files match "${pattern}"${path ? ` under ${path}` : ''}.`;
      const shown = found.slice(0, max);
      return found.length > max
        ? `${shown.join('\n')}\n[more than ${count(max, 'match', 'matches')}; narrow the pattern]`
        : shown.join('\n');
    },
  });
}
