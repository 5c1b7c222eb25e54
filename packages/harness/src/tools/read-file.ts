import { z } from 'zod';
import { defineTool, type Tool } from '@rxscope/core';
import { checkOptions, integerAtLeast } from '../options/index.js';
import {
  FileTooLargeError,
  type WorkspaceFileSystem,
  count,
  decodeText,
  looksBinary,
  splitLines,
} from '../workspace/index.js';

/** Options of {@link readFileTool}. */
export interface ReadFileOptions {
  /** Lines returned when no `limit` is given. Default 2,000. */
  readonly defaultLimit?: number;
  /** Longest line returned whole; longer lines are cut with a note. Default 2,000 characters. */
  readonly maxLineChars?: number;
  /** Most characters of one result; the rest is left for a next call with `offset`. Default 50,000. */
  readonly maxChars?: number;
  /** Largest file read at all, checked on the read itself (a file growing meanwhile is caught). Default 20 MB. */
  readonly maxFileBytes?: number;
}

const input = z.object({
  path: z.string().describe('File path, relative to the workspace root.'),
  offset: z.number().int().min(1).optional().describe('First line to read, from 1. Default 1.'),
  limit: z.number().int().min(1).optional().describe('How many lines to read. Default 2000.'),
});

/**
 * `read_file {path, offset?, limit?}`: a text file of the workspace with line numbers
 * (`cat -n` style), from line `offset` (from 1), at most `limit` lines. Long lines are cut and
 * the whole result is capped at `maxChars`, with a note saying how to read on, so even a file
 * of a few huge lines (an evicted tool result) reads back in pieces. Binary files are refused, and
 * so is a file over `maxFileBytes` (a `file_too_large` error result): at most that much of a file
 * ever comes into memory, even one that grows while it is read. Read-only and concurrency-safe.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [readFileTool(new LocalFileSystem('./ws'), { maxChars: 20_000 })] });
 * ```
 */
export function readFileTool(fs: WorkspaceFileSystem, options: ReadFileOptions = {}): Tool<z.output<typeof input>> {
  checkOptions('readFileTool', options, {
    defaultLimit: integerAtLeast(1),
    maxLineChars: integerAtLeast(1),
    maxChars: integerAtLeast(1),
    maxFileBytes: integerAtLeast(0),
  });
  const defaultLimit = options.defaultLimit ?? 2000;
  const maxLineChars = options.maxLineChars ?? 2000;
  const maxChars = options.maxChars ?? 50_000;
  const maxFileBytes = options.maxFileBytes ?? 20 * 1024 * 1024;
  return defineTool({
    name: 'read_file',
    description:
      'Read a text file of the workspace. Lines are numbered from 1; use offset and limit to read a part of a long file. ' +
      'Long lines and long results are cut with a note telling how to read on.',
    input,
    readOnly: true,
    execute: async ({ path, offset = 1, limit = defaultLimit }) => {
      const info = await fs.stat(path);
      if (!info) throw new Error(`"${path}" does not exist in the workspace.`);
      if (info.type !== 'file') throw new Error(`"${path}" is a folder; use list_files to see what it holds.`);
      const tooLarge = (size?: number) =>
        new FileTooLargeError({
          path,
          maxBytes: maxFileBytes,
          ...(size !== undefined ? { size } : {}),
          reader: 'read_file',
          advice: 'Search it with grep_files.',
        });
      if (info.size > maxFileBytes) throw tooLarge(info.size);
      // Bounded on the read too: the file may have grown since the stat.
      const bytes = await fs.readFile(path, { maxBytes: maxFileBytes }).catch((e: unknown) => {
        throw e instanceof FileTooLargeError ? tooLarge(e.size) : e;
      });
      if (looksBinary(bytes))
        throw new Error(
          `"${path}" is a binary file (${count(bytes.length, 'byte')}); read_file reads text files only.`,
        );
      const lines = splitLines(decodeText(bytes));
      if (lines.length === 0) return `(${path} is empty)`;
      if (offset > lines.length)
        throw new Error(`offset ${offset} is past the end of "${path}", which has ${count(lines.length, 'line')}.`);
      const last = Math.min(lines.length, offset - 1 + limit);
      const width = String(last).length;
      let out = '';
      let cutLines = 0;
      let shown = offset - 1;
      for (let i = offset - 1; i < last; i++) {
        let line = lines[i]!;
        if (line.length > maxLineChars) {
          line = `${line.slice(0, maxLineChars)} … [line cut: ${count(line.length, 'character')}]`;
          cutLines++;
        }
        const numbered = `${String(i + 1).padStart(width, ' ')}\t${line}\n`;
        if (out.length + numbered.length > maxChars && i > offset - 1) break;
        out += numbered;
        shown = i + 1;
      }
      const notes: string[] = [];
      if (cutLines)
        notes.push(
          `${count(cutLines, 'line')} longer than ${count(maxLineChars, 'character')} cut; search them with grep_files.`,
        );
      if (shown < lines.length) {
        notes.push(`Showing lines ${offset}-${shown} of ${lines.length}; read on with offset=${shown + 1}.`);
      }
      return notes.length ? `${out}\n[${notes.join(' ')}]` : out;
    },
  });
}
