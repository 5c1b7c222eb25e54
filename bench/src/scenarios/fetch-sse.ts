/**
 * The fetch floor: the exchange driven by hand with `fetch` and a minimal SSE reader, no SDK at
 * all. A JavaScript client of a streamed chat completion cannot do much less than this: one
 * request, the body's bytes decoded, split into lines, each `data:` line parsed as JSON. The
 * reference contender `fetch-sse` of S1 and of the concurrency-at-scale scenario.
 */
import type OpenAI from 'openai';
import { handExchange, type Outcome, type ReplyHooks } from './exchange.js';

type ChatChunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/** Where the floor sends its requests. */
export interface FetchTarget {
  /** Base URL ending in `/v1`, as the `openai` client's `baseURL`. */
  readonly baseURL: string;
  readonly apiKey: string;
}

/**
 * POSTs `params` to `/chat/completions` and hands every `data:` chunk to `onChunk` until
 * `[DONE]`. Events are one `data:` line each (what chat completions send); anything else
 * (comments, `event:` lines) is skipped.
 */
export async function fetchSse(
  target: FetchTarget,
  params: OpenAI.Chat.ChatCompletionCreateParamsStreaming,
  onChunk: (chunk: ChatChunk) => void,
): Promise<void> {
  const response = await fetch(`${target.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.apiKey}` },
    body: JSON.stringify(params),
  });
  if (!response.ok || !response.body) throw new Error(`chat completion failed: HTTP ${response.status}`);
  const decoder = new TextDecoder();
  let buffered = '';
  // Read to the end of the body even after [DONE]: a body left unread costs the pooled connection.
  let done = false;
  const reader = response.body.getReader();
  for (;;) {
    const read = await reader.read();
    if (read.done) break;
    buffered += decoder.decode(read.value, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, end).trimEnd();
      buffered = buffered.slice(end + 1);
      if (done || !line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') done = true;
      else onChunk(JSON.parse(data) as ChatChunk);
    }
  }
}

/** The exchange by hand over {@link fetchSse}: the fetch floor. */
export function fetchSseReply(target: FetchTarget, hooks: ReplyHooks = {}): Promise<Outcome> {
  return handExchange((params, step) => fetchSse(target, params, (chunk) => step.add(chunk)), hooks);
}
