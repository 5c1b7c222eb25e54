import { type ChatOpenAICompletions, type OpenAIClient, wrapOpenAIClientError } from '@langchain/openai';

/**
 * Runs `call` with ChatOpenAI's `openai` client, as `completionWithRetry` does without its
 * `AsyncCaller`: the client made on first use, and its errors wrapped the same way.
 */
export async function withOpenAIClient<T>(
  completions: ChatOpenAICompletions,
  call: (client: OpenAIClient) => Promise<T>,
): Promise<T> {
  // ChatOpenAI creates its client on first use (the call also copies its client options: once is enough).
  if (!(completions.client as OpenAIClient | undefined)) completions._getClientOptions(undefined);
  try {
    return await call(completions.client);
  } catch (e) {
    throw wrapOpenAIClientError(e);
  }
}
