import { z } from 'zod';
import { defineTool, type Tool } from '@rxscope/core';
import { checkOptions, integerAtLeast } from '../options/index.js';
import { FileTooLargeError, type WorkspaceFileSystem, count, decodeText, looksBinary } from '../workspace/index.js';

/**
 * Options of {@link editFileTool}.
 *
 * @example
 * ```ts
 * createHarnessAgent({ model, workspace: './ws', editFile: { maxFileBytes: 50 * 1024 * 1024 } });
 * ```
 */
export interface EditFileOptions {
  /**
   * Largest file edited, checked on the read itself: a larger one is a `file_too_large` error
   * result and never comes into memory. Default 20 MB (what `read_file` reads).
   */
  readonly maxFileBytes?: number;
}

const input = z.object({
  path: z.string().describe('File path, relative to the workspace root.'),
  old_string: z.string().describe('The exact text to replace, including whitespace and indentation.'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence instead of exactly one. Default false.'),
});

/** Number of non-overlapping occurrences of `needle` in `text`. */
function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** 1-based line numbers where `needle` starts (at most `max`). */
function linesOf(text: string, needle: string, max: number): number[] {
  const out: number[] = [];
  for (let at = text.indexOf(needle); at !== -1 && out.length < max; at = text.indexOf(needle, at + needle.length)) {
    out.push(text.slice(0, at).split('\n').length);
  }
  return out;
}

/**
 * `edit_file {path, old_string, new_string, replace_all?}`: replaces an exact piece of a text
 * file. Without `replace_all` the piece must occur exactly once; a missing piece and an
 * ambiguous one are error results that say which, with the number of occurrences and their
 * lines, so the model can widen the piece. A file over `maxFileBytes` is refused before it is
 * read. Not read-only.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [editFileTool(new LocalFileSystem('./ws'), { maxFileBytes: 5 << 20 })] });
 * ```
 */
export function editFileTool(fs: WorkspaceFileSystem, options: EditFileOptions = {}): Tool<z.output<typeof input>> {
  checkOptions('editFileTool', options, { maxFileBytes: integerAtLeast(0) });
  const maxBytes = options.maxFileBytes ?? 20 * 1024 * 1024;
  const tooLarge = (path: string, size: number | undefined) =>
    new FileTooLargeError({
      path,
      maxBytes,
      ...(size !== undefined ? { size } : {}),
      reader: 'edit_file',
      advice: 'Change it with a shell command (sed, a script) if you have execute, or split it into smaller files.',
    });
  return defineTool({
    name: 'edit_file',
    description:
      'Replace an exact piece of text in a file of the workspace. old_string must match exactly (whitespace included) and, ' +
      'unless replace_all is true, occur exactly once: include enough surrounding lines to make it unique.',
    input,
    execute: async ({ path, old_string, new_string, replace_all = false }) => {
      if (old_string === '') throw new Error('old_string is empty; to create or replace a whole file, use write_file.');
      if (old_string === new_string) throw new Error('old_string and new_string are the same; nothing would change.');
      const info = await fs.stat(path);
      if (!info) throw new Error(`"${path}" does not exist in the workspace; create it with write_file.`);
      if (info.type !== 'file') throw new Error(`"${path}" is a folder, not a file.`);
      if (info.size > maxBytes) throw tooLarge(path, info.size);
      const bytes = await fs.readFile(path, { maxBytes }).catch((e: unknown) => {
        throw e instanceof FileTooLargeError ? tooLarge(path, e.size) : e;
      });
      if (looksBinary(bytes)) throw new Error(`"${path}" is a binary file; edit_file edits text files only.`);
      const text = decodeText(bytes);
      const found = occurrences(text, old_string);
      if (found === 0) {
        const trimmed = old_string.trim();
        const hint =
          trimmed !== old_string && trimmed !== '' && text.includes(trimmed)
            ? ' The text without its leading/trailing whitespace does occur: check indentation and line ends.'
            : ' Read the file again (read_file) and copy the text exactly.';
        throw new Error(`old_string was not found in "${path}" (0 occurrences).${hint}`);
      }
      if (found > 1 && !replace_all) {
        throw new Error(
          `old_string occurs ${found} times in "${path}" (lines ${linesOf(text, old_string, 10).join(', ')}); ` +
            'include more surrounding text so it occurs once, or set replace_all: true to replace all of them.',
        );
      }
      const updated = replace_all
        ? text.split(old_string).join(new_string)
        : text.replace(old_string, () => new_string);
      await fs.writeFile(path, updated);
      return `Replaced ${count(replace_all ? found : 1, 'occurrence')} in ${path}.`;
    },
  });
}
