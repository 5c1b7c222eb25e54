import { type ChatModel, modelText, type Msg } from '@rxscope/core';

/**
 * The sections a compaction summary holds, in order.
 *
 * @example
 * ```ts
 * SUMMARY_SECTIONS.every((s) => summaryText.includes(`## ${s}`));
 * ```
 */
export const SUMMARY_SECTIONS = ['Intent', 'Summary', 'Artifacts', 'Next steps'] as const;

const SUMMARY_PROMPT =
  'You compact the history of a conversation between a user and an AI agent that uses tools, so the agent can go on ' +
  'working with the summary instead of the full history. Write these Markdown sections, nothing else:\n' +
  '## Intent\nWhat the user wants, in their own terms, with every constraint and preference they stated.\n' +
  '## Summary\nWhat was done and found, decisions and their reasons, errors met and how they were solved.\n' +
  '## Artifacts\nFiles read, created or changed (paths), commands run, results the agent relies on — exact names and values.\n' +
  '## Next steps\nWhat remains to do, in order, and the step in progress.\n' +
  'If an earlier summary is given, fold it in: the new summary replaces it and must keep what still matters.';

/** Characters of one block kept in the transcript given to the summariser. */
const BLOCK_CHARS = 2000;

/**
 * A plain-text transcript of messages (what the summariser reads), each block cut to 2,000
 * characters; thinking is left out.
 *
 * @example
 * ```ts
 * transcriptOf([createMsg('user', 'Fix the bug')]); // 'user: Fix the bug'
 * ```
 */
export function transcriptOf(messages: readonly Msg[]): string {
  const cut = (s: string) =>
    s.length > BLOCK_CHARS ? `${s.slice(0, BLOCK_CHARS)} … [${s.length - BLOCK_CHARS} characters cut]` : s;
  const lines: string[] = [];
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === 'text') lines.push(`${m.role}: ${cut(b.text)}`);
      else if (b.type === 'thinking') continue;
      else if (b.type === 'hint') lines.push(`(note to the agent: ${cut(b.text)})`);
      else if (b.type === 'tool_call') lines.push(`${m.role} called ${b.name}(${cut(b.arguments)})`);
      else if (b.type === 'tool_result') {
        const text = b.output.map((o) => (o.type === 'text' ? o.text : `[${o.mediaType}]`)).join('');
        lines.push(`result of ${b.name} (${b.status}): ${cut(text)}`);
      } else lines.push(`${m.role}: [${b.mediaType}]`);
    }
  }
  return lines.join('\n');
}

/**
 * Asks `model` for a structured summary of `messages` (intent, summary, artifacts, next steps),
 * folding in `earlier`, the summary a previous compaction left. Resolves with its text.
 */
export async function summarize(
  model: ChatModel,
  messages: readonly Msg[],
  earlier: string | undefined,
  signal: AbortSignal,
): Promise<string> {
  const request =
    (earlier ? `Earlier summary:\n${earlier}\n\n` : '') +
    `Conversation to summarise:\n${transcriptOf(messages)}\n\nWrite the summary now.`;
  const text = await modelText(model, { system: SUMMARY_PROMPT, user: request, signal });
  if (!text.trim()) throw new Error('the model returned an empty summary');
  return text.trim();
}
