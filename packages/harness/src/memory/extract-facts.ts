import { type ChatModel, modelText, type Msg } from '@rxscope/core';
import { transcriptOf } from '../context/index.js';
import { bulletsOf } from './ledger.js';

const EXTRACT_PROMPT =
  'You maintain the long-term memory of an AI agent. From the conversation below, extract the durable facts worth ' +
  "remembering in later sessions: the user's stated preferences and constraints, decisions and their reasons, facts " +
  'about the user, their project and environment (names, paths, versions, conventions), and lessons learned from errors. ' +
  "Leave out small talk, the task's transient details, anything already in the existing memory, and secrets " +
  '(passwords, API keys, tokens). Write one fact per line as a Markdown bullet ("- ..."), each a self-contained ' +
  'sentence. If nothing is worth remembering, answer exactly NONE.';

/**
 * Asks `model` for the durable facts of `messages` (bullets), given what memory already holds.
 * Resolves with the facts; an empty array when the model found none.
 */
export async function extractFacts(
  model: ChatModel,
  messages: readonly Msg[],
  known: string,
  signal: AbortSignal,
): Promise<string[]> {
  const request =
    (known.trim() ? `Existing memory (do not repeat it):\n${known.trim()}\n\n` : '') +
    `Conversation:\n${transcriptOf(messages)}\n\nList the durable facts now.`;
  const text = await modelText(model, { system: EXTRACT_PROMPT, user: request, signal });
  if (/^\s*NONE\s*$/i.test(text)) return [];
  const facts = bulletsOf(text);
  if (!facts.length && text.trim())
    throw new Error(`the model's answer has no "- " bullet and is not NONE: ${text.trim().slice(0, 200)}`);
  return facts;
}
