import { type ChatModel, modelText } from '@rxscope/core';

const CONSOLIDATE_PROMPT =
  'You maintain MEMORY.md, the long-term memory of an AI agent, injected into its system prompt. Merge the daily ' +
  'ledgers below into the current MEMORY.md and write the complete new file: Markdown, grouped under short "## " ' +
  'headings by topic, one fact per "- " bullet. Keep every durable fact; merge duplicates; when facts contradict, keep ' +
  'the newer one (ledgers are dated); drop what is plainly obsolete or transient; never add anything that is not in the ' +
  'input. Write only the file, no commentary.';

/**
 * Asks `model` for a new `MEMORY.md` merging `current` with the dated `ledgers`, at most
 * `maxChars` long. Rejects when the answer is empty or too long (nothing is written then).
 */
export async function consolidate(
  model: ChatModel,
  current: string,
  ledgers: readonly { readonly path: string; readonly text: string }[],
  maxChars: number,
  signal: AbortSignal,
): Promise<string> {
  const request =
    `Current MEMORY.md:\n${current.trim() || '(empty)'}\n\n` +
    ledgers.map((l) => `Ledger ${l.path}:\n${l.text.trim()}`).join('\n\n') +
    `\n\nWrite the new MEMORY.md now, at most ${maxChars} characters.`;
  const text = await modelText(model, { system: CONSOLIDATE_PROMPT, user: request, signal });
  const memory = text
    .trim()
    .replace(/^```(?:markdown|md)?\n([\s\S]*)\n```$/, '$1')
    .trim();
  if (!memory) throw new Error('the model returned an empty MEMORY.md; nothing was changed');
  if (memory.length > maxChars) {
    throw new Error(
      `the model's MEMORY.md has ${memory.length} characters, over the limit of ${maxChars}; nothing was changed`,
    );
  }
  return memory;
}
