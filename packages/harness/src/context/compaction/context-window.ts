import type { ChatModel } from '@rxscope/core';

// Context windows (tokens) of well-known models, by name prefix: longest prefix wins.
const KNOWN: readonly (readonly [string, number])[] = [
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-5', 400_000],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['claude-', 200_000],
  ['gemini-1.5', 1_000_000],
  ['gemini-2', 1_000_000],
];

/**
 * The context window of a model in tokens, when known: the model's own `contextWindow` field
 * if it has one, else the table of well-known models by name; `undefined` otherwise.
 *
 * @example
 * ```ts
 * contextWindowOf(new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey })); // 128000
 * ```
 */
export function contextWindowOf(model: ChatModel): number | undefined {
  const own = (model as { contextWindow?: unknown }).contextWindow;
  if (typeof own === 'number' && own > 0) return own;
  const name = model.modelName.toLowerCase();
  let best: readonly [string, number] | undefined;
  for (const entry of KNOWN) if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best?.[1];
}
