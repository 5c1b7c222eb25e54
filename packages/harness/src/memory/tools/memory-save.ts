import { z } from 'zod';
import { defineTool, type Tool } from '@rxscope/core';
import { appendToLedger, bulletsOf, dayOf, ledgerPathOf } from '../ledger.js';
import type { WorkspaceFileSystem } from '../../workspace/index.js';

const input = z.object({
  content: z.string().min(1).max(4000).describe('The fact(s) to remember: one sentence, or "- " bullets for several.'),
});

/**
 * `memory_save {content}`: the agent writes durable facts to today's ledger,
 * `memory/YYYY-MM-DD.md` (one sentence, or several `- ` bullets), where memory maintenance
 * later folds them into `MEMORY.md`. Facts the ledger already holds are not repeated.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [memorySaveTool(new LocalFileSystem('./ws'))] });
 * ```
 */
export function memorySaveTool(
  fs: WorkspaceFileSystem,
  options: { readonly now?: () => Date } = {},
): Tool<z.output<typeof input>> {
  const now = options.now ?? (() => new Date());
  return defineTool({
    name: 'memory_save',
    description:
      'Save facts to your long-term memory so later sessions know them: user preferences, decisions, facts about the ' +
      'project. Not for secrets. One sentence, or several "- " bullets.',
    input,
    concurrencySafe: false,
    execute: async ({ content }) => {
      const bullets = bulletsOf(content);
      const facts = bullets.length ? bullets : [content.replace(/\s+/g, ' ').trim()];
      const at = now();
      const day = dayOf(at);
      const written = await appendToLedger(
        fs,
        day,
        `${at.toISOString().slice(11, 16)} UTC — saved by the agent`,
        facts,
      );
      if (!written.length) return `Already in memory (${ledgerPathOf(day)}); nothing new saved.`;
      return `Saved ${written.length === 1 ? '1 fact' : `${written.length} facts`} to ${ledgerPathOf(day)}.`;
    },
  });
}
