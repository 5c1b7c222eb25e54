/**
 * A streamed chat completion's body read by hand, the way rxscope's `OpenAIChatModel` reads it:
 * a `TextDecoder` and `eventsource-parser`'s push parser over the response the plain `openai`
 * client hands back with `asResponse()`, instead of the SDK's `Stream`. The reference contenders
 * `openai-sse` use it, so the adapter's and the loop's own costs can be told from that difference.
 */
import { createParser } from 'eventsource-parser';
import type OpenAI from 'openai';

type ChatChunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/** Sends `params` with `client` and hands every parsed chunk to `onChunk` until `[DONE]` or the end of the body. */
export async function streamByHand(
  client: OpenAI,
  params: OpenAI.Chat.ChatCompletionCreateParamsStreaming,
  onChunk: (chunk: ChatChunk) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await client.chat.completions.create(params, signal ? { signal } : undefined).asResponse();
  let done = false;
  const parser = createParser({
    onEvent: (event) => {
      if (event.data === '[DONE]') done = true;
      else if (!done) onChunk(JSON.parse(event.data) as ChatChunk);
    },
  });
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  for (;;) {
    const { done: end, value } = await reader.read();
    if (end) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
}
