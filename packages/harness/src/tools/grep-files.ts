import { z } from 'zod';
import { defineTool, type Tool } from '@rxscope/core';
import type { WorkspaceFileSystem } from '../workspace/workspace-file-system.js';
import { count, decodeText, looksBinary, splitLines } from './text.js';

/** Options of {@link grepFilesTool}. */
export interface GrepFilesOptions {
  /** Most matching lines reported. Default 200. */
  readonly maxMatches?: number;
  /** Longest line shown whole. Default 300 characters. */
  readonly maxLineChars?: number;
  /** Files larger than this are skipped. Default 5 MB. */
  readonly maxFileBytes?: number;
}

const input = z.object({
  pattern: z.string().describe('Regular expression (JavaScript syntax) to search for, e.g. "function\\s+main".'),
  path: z
    .string()
    .optional()
    .describe('Folder (or file) to search, relative to the workspace root. Default: the root.'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "**/*.ts". Default: all files.'),
});

/**
 * `grep_files {pattern, path?, glob?}`: lines of the workspace's text files matching a regular
 * expression, as `path:line: text`. Binary files, files over `maxFileBytes` and what
 * `.gitignore` excludes are skipped; an invalid expression is an error result naming the
 * problem. Read-only and concurrency-safe.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [grepFilesTool(new LocalFileSystem('./ws'), { maxMatches: 50 })] });
 * ```
 */
export function grepFilesTool(fs: WorkspaceFileSystem, options: GrepFilesOptions = {}): Tool<z.output<typeof input>> {
  const maxMatches = options.maxMatches ?? 200;
  const maxLineChars = options.maxLineChars ?? 300;
  const maxFileBytes = options.maxFileBytes ?? 5 * 1024 * 1024;
  return defineTool({
    name: 'grep_files',
    description:
      'Search the text files of the workspace for a regular expression; prints path:line: text for each match.',
    input,
    readOnly: true,
    execute: async ({ pattern, path, glob }) => {
      let regex: RegExp;
      try {
        regex = new RegExp(pattern);
      } catch (e) {
        throw new Error(`The pattern is not a valid regular expression: ${(e as Error).message}`, { cause: e });
      }
      const start = path ?? '.';
      const info = await fs.stat(start);
      if (!info) throw new Error(`"${start}" does not exist in the workspace.`);
      const files = info.type === 'file' ? [info.path] : await fs.glob(glob ?? '**/*', { cwd: start });
      const out: string[] = [];
      let matchedFiles = 0;
      let more = false;
      for (const file of files) {
        if (more) break;
        const st = await fs.stat(file);
        if (!st || st.size > maxFileBytes) continue;
        const bytes = await fs.readFile(file);
        if (looksBinary(bytes)) continue;
        const lines = splitLines(decodeText(bytes));
        let hit = false;
        for (let i = 0; i < lines.length; i++) {
          if (!regex.test(lines[i]!)) continue;
          if (out.length >= maxMatches) {
            more = true;
            break;
          }
          hit = true;
          const line = lines[i]!;
          out.push(`${file}:${i + 1}: ${line.length > maxLineChars ? `${line.slice(0, maxLineChars)} … [cut]` : line}`);
        }
        if (hit) matchedFiles++;
      }
      if (!out.length)
        return `No matches for /${pattern}/${glob ? ` in files matching ${glob}` : ''}${path ? ` under ${path}` : ''}.`;
      const summary = `[${count(out.length, 'match', 'matches')} in ${count(matchedFiles, 'file')}${more ? `; stopped at ${maxMatches}, narrow the search` : ''}]`;
      return `${out.join('\n')}\n${summary}`;
    },
  });
}
