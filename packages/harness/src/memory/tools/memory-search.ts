import { create, insertMultiple, search } from '@orama/orama';
import { z } from 'zod';
import { defineTool, type Tool } from '@rxscope/core';
import { readText } from '../ledger.js';
import { FileTooLargeError, WORKSPACE_LAYOUT, type WorkspaceFileSystem, splitLines } from '../../workspace/index.js';

const input = z.object({ query: z.string().min(1).describe('Words to look for in the memory files.') });

/** A passage of a memory file: a bullet or a paragraph, with its lines. */
interface Passage {
  readonly path: string;
  readonly line: number;
  readonly endLine: number;
  readonly text: string;
}

/** The memory files: `MEMORY.md`, then `memory/**\/*.md` (ledgers and the archive). */
export async function memoryFiles(fs: WorkspaceFileSystem): Promise<string[]> {
  const ledgers = await fs.glob(`${WORKSPACE_LAYOUT.memoryDir}/**/*.md`, { respectGitignore: false }).catch(() => []);
  return [WORKSPACE_LAYOUT.memory, ...ledgers.sort().reverse()];
}

function passagesOf(path: string, text: string): Passage[] {
  const passages: Passage[] = [];
  let open: { line: number; lines: string[] } | undefined;
  const close = (end: number) => {
    if (open) passages.push({ path, line: open.line, endLine: end, text: open.lines.join(' ') });
    open = undefined;
  };
  splitLines(text).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return close(i);
    if (/^[-*]\s/.test(line)) close(i); // each bullet is its own passage
    open ??= { line: i + 1, lines: [] };
    open.lines.push(line.replace(/^[-*]\s+/, ''));
  });
  close(splitLines(text).length);
  return passages;
}

/**
 * `memory_search {query}`: full-text search (BM25, `@orama/orama`) over the agent's memory —
 * `MEMORY.md`, the daily ledgers in `memory/` and the archive — by bullet and paragraph. Each
 * hit is `path:line: text`, to read around with `memory_get`. At most `maxResults` (default 8).
 * Read-only and concurrency-safe.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [memorySearchTool(new LocalFileSystem('./ws'))] });
 * ```
 */
export function memorySearchTool(
  fs: WorkspaceFileSystem,
  options: { readonly maxResults?: number } = {},
): Tool<z.output<typeof input>> {
  const limit = options.maxResults ?? 8;
  return defineTool({
    name: 'memory_search',
    description:
      'Search your long-term memory (MEMORY.md and the dated notes in memory/) for facts, preferences and decisions from ' +
      'earlier sessions. Returns matching lines as path:line: text; read more with memory_get.',
    input,
    readOnly: true,
    execute: async ({ query }) => {
      const passages: Passage[] = [];
      const skipped: string[] = [];
      for (const path of await memoryFiles(fs)) {
        const text = await readText(fs, path).catch((e: unknown) => {
          if (!(e instanceof FileTooLargeError)) throw e;
          skipped.push(path);
          return undefined;
        });
        passages.push(...passagesOf(path, text ?? ''));
      }
      const note = skipped.length ? `\n[not searched, too large: ${skipped.join(', ')}]` : '';
      if (!passages.length) return `Your memory is empty: MEMORY.md and memory/ hold no notes yet.${note}`;
      const db = create({ schema: { text: 'string' } as const });
      await insertMultiple(
        db,
        passages.map((p, i) => ({ id: String(i), text: p.text })),
      );
      const { hits } = await search(db, { term: query, properties: ['text'], threshold: 1, limit });
      if (!hits.length) return `Nothing in memory matches "${query}" (searched ${passages.length} notes).${note}`;
      const lines = hits.map((h) => passages[Number(h.id)]!).map((p) => `${p.path}:${p.line}: ${p.text}`);
      return lines.join('\n') + note;
    },
  });
}
