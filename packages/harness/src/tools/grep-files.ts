import { z } from 'zod';
import { defineTool, type Tool, type ToolContext } from '@rxscope/core';
import { checkOptions, integerAtLeast } from '../options/index.js';
import { searchLines, compileSearchRegex, type SearchRegex, TimeSlice } from '../search/index.js';
import { FileTooLargeError, type WorkspaceFileSystem, count, looksBinary } from '../workspace/index.js';

/** Options of {@link grepFilesTool}. */
export interface GrepFilesOptions {
  /** Most matching lines reported. Default 200. */
  readonly maxMatches?: number;
  /** Longest line shown whole. Default 300 characters. */
  readonly maxLineChars?: number;
  /** Files larger than this are skipped (checked on the read itself too). Default 5 MB. */
  readonly maxFileBytes?: number;
  /** Longest search; past it the search stops and says so. Default 20,000 ms. */
  readonly maxSearchMs?: number;
}

const input = z.object({
  pattern: z
    .string()
    .describe(
      'Regular expression (JavaScript syntax, run by RE2: no backreferences or lookaround) to search for, ' +
        'e.g. "function\\s+main"; start it with (?i) to ignore case.',
    ),
  path: z
    .string()
    .optional()
    .describe('Folder (or file) to search, relative to the workspace root. Default: the root.'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "**/*.ts". Default: all files.'),
});

interface Search {
  readonly regex: SearchRegex;
  readonly lines: string[];
  matchedFiles: number;
  /** Why the search stopped early, if it did. */
  stoppedBy?: 'matches' | 'time' | 'cancelled';
  largeFiles: number;
  longLines: number;
}

/**
 * `grep_files {pattern, path?, glob?}`: lines of the workspace's text files matching a regular
 * expression, as `path:line: text`. The pattern is the model's, so it runs on RE2 (linear time:
 * `(a+)+$` costs what `a+$` does) with a bounded program, a long line is searched in its first
 * thousands of bytes (the search runs on the file's bytes, no string per line), files are read a bounded size at a time and searched in time slices,
 * and the whole search stops after `maxSearchMs`: the event loop is never held for more than a
 * few milliseconds. Binary files, files over `maxFileBytes` and what `.gitignore` excludes are
 * skipped; a pattern RE2 cannot run is an error result naming the problem and what is supported.
 * Read-only and concurrency-safe.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [grepFilesTool(new LocalFileSystem('./ws'), { maxMatches: 50 })] });
 * ```
 */
export function grepFilesTool(fs: WorkspaceFileSystem, options: GrepFilesOptions = {}): Tool<z.output<typeof input>> {
  checkOptions('grepFilesTool', options, {
    maxMatches: integerAtLeast(1),
    maxLineChars: integerAtLeast(1),
    maxFileBytes: integerAtLeast(0),
    maxSearchMs: integerAtLeast(1),
  });
  const limits = {
    maxMatches: options.maxMatches ?? 200,
    maxLineChars: options.maxLineChars ?? 300,
    maxFileBytes: options.maxFileBytes ?? 5 * 1024 * 1024,
    maxSearchMs: options.maxSearchMs ?? 20_000,
  };
  return defineTool({
    name: 'grep_files',
    description:
      'Search the text files of the workspace for a regular expression; prints path:line: text for each match.',
    input,
    readOnly: true,
    execute: async ({ pattern, path, glob }, ctx) => {
      const search: Search = {
        regex: compileSearchRegex(pattern),
        lines: [],
        matchedFiles: 0,
        largeFiles: 0,
        longLines: 0,
      };
      const start = path ?? '.';
      const info = await fs.stat(start);
      if (!info) throw new Error(`"${start}" does not exist in the workspace.`);
      const files = info.type === 'file' ? [info.path] : await fs.glob(glob ?? '**/*', { cwd: start });
      await searchFiles(fs, files, search, limits, ctx);
      return report(search, limits, { pattern, path, glob });
    },
  });
}

async function searchFiles(
  fs: WorkspaceFileSystem,
  files: readonly string[],
  search: Search,
  limits: Required<GrepFilesOptions>,
  ctx: ToolContext,
): Promise<void> {
  const slice = new TimeSlice();
  const deadline = performance.now() + limits.maxSearchMs;
  for (const file of files) {
    if (ctx.signal?.aborted) search.stoppedBy = 'cancelled';
    else if (performance.now() > deadline) search.stoppedBy = 'time';
    if (search.stoppedBy) return;
    const st = await fs.stat(file);
    if (!st || st.type !== 'file') continue;
    if (st.size > limits.maxFileBytes) {
      search.largeFiles++;
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await fs.readFile(file, { maxBytes: limits.maxFileBytes });
    } catch (e) {
      if (!(e instanceof FileTooLargeError)) throw e;
      search.largeFiles++; // it grew since the stat
      continue;
    }
    if (looksBinary(bytes)) continue;
    let hit = false;
    const result = await searchLines(bytes, search.regex, slice, limits.maxLineChars, (n, line) => {
      if (search.lines.length >= limits.maxMatches) {
        search.stoppedBy = 'matches';
        return false;
      }
      hit = true;
      const shown = line.length > limits.maxLineChars ? `${line.slice(0, limits.maxLineChars)} … [cut]` : line;
      search.lines.push(`${file}:${n}: ${shown}`);
      // Checked at each match too: a file of many matches is left when time is up.
      if (performance.now() <= deadline) return true;
      search.stoppedBy = 'time';
      return false;
    });
    search.longLines += result.longLines;
    if (hit) search.matchedFiles++;
  }
}

function report(
  search: Search,
  limits: Required<GrepFilesOptions>,
  asked: { pattern: string; path: string | undefined; glob: string | undefined },
): string {
  const notes: string[] = [];
  if (search.stoppedBy === 'time')
    notes.push(
      `stopped after ${limits.maxSearchMs.toLocaleString('en-US')} ms of searching; narrow it with path or glob`,
    );
  if (search.stoppedBy === 'cancelled') notes.push('stopped: the call was cancelled');
  if (search.largeFiles)
    notes.push(`${count(search.largeFiles, 'file')} over ${count(limits.maxFileBytes, 'byte')} not searched`);
  if (search.longLines) {
    notes.push(
      `${count(search.longLines, 'line')} longer than ${count(search.regex.lineBytes, 'byte')} searched in ` +
        'their first bytes only',
    );
  }
  const tail = notes.length ? `\n[${notes.join('; ')}]` : '';
  if (!search.lines.length) {
    const where = `${asked.glob ? ` in files matching ${asked.glob}` : ''}${asked.path ? ` under ${asked.path}` : ''}`;
    return `No matches for /${asked.pattern}/${where}.${tail}`;
  }
  const more = search.stoppedBy === 'matches' ? `; stopped at ${limits.maxMatches}, narrow the search` : '';
  const summary = `[${count(search.lines.length, 'match', 'matches')} in ${count(search.matchedFiles, 'file')}${more}]`;
  return `${search.lines.join('\n')}\n${summary}${tail}`;
}
