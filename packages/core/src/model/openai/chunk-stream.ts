import { type ChatOpenAICompletions, OpenAIClient } from '@langchain/openai';
import { createParser } from 'eventsource-parser';
import { ModelError } from '../model-error.js';
import { withOpenAIClient } from './openai-client.js';

type Chunk = OpenAIClient.Chat.Completions.ChatCompletionChunk;
type StreamParams = OpenAIClient.Chat.ChatCompletionCreateParamsStreaming;

/**
 * Sends a streamed chat completion request through ChatOpenAI's `openai` client and resolves with
 * the raw response once its headers are in (errors before that wrapped as `completionWithRetry`
 * wraps them). With `maxRetries > 0` the request goes through ChatOpenAI's `AsyncCaller`, as
 * `completionWithRetry` does; a failure after the headers is never retried.
 *
 * The body is left unread: {@link readChunks} parses it. The `openai` SDK's own `Stream` costs
 * about 0.35 ms per streamed call over loopback (three nested async generators, a microtask hop
 * per event); reading the body with a push parser costs a fraction of that.
 */
export function openChunkStream(
  completions: ChatOpenAICompletions,
  body: StreamParams,
  signal: AbortSignal,
  maxRetries: number,
): Promise<Response> {
  const send = (): Promise<Response> =>
    withOpenAIClient(completions, (client) => client.chat.completions.create(body, { signal }).asResponse());
  return maxRetries > 0 ? completions.caller.callWithOptions({ maxRetries }, send) : send();
}

/** The error a streamed event reports (`event: error`, or a JSON payload with an `error` field), as the SDK raises it. */
function streamedError(payload: unknown, named: boolean, headers: Headers): Error {
  const error: unknown = named ? ((payload as { error?: unknown } | null)?.error ?? payload) : payload;
  return new OpenAIClient.APIError(undefined, error as object, undefined, headers);
}

/** How long a body may stay open after `[DONE]` before it is cancelled. */
const END_AFTER_DONE_MS = 1000;

/**
 * After `[DONE]` the call is over, but the body normally ends right behind it: reading that end
 * (in the background) lets the client keep the connection for the next request, where a cancel
 * would close it (a new TCP and TLS handshake for the next call). A body that sends more, or is
 * still open a second later, is cancelled, as the SDK cancels it.
 */
function finishBody(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  const timer = setTimeout(cancel, END_AFTER_DONE_MS);
  (timer as { unref?: () => void }).unref?.();
  reader.read().then(
    (r) => {
      clearTimeout(timer);
      if (!r.done) cancel();
    },
    () => clearTimeout(timer),
  );
}

/** Cancels `reader` when `signal` aborts; returns the unlink (a listener made here holds only these two). */
function cancelOnAbort(signal: AbortSignal, reader: ReadableStreamDefaultReader<Uint8Array>): () => void {
  const onAbort = (): void => void reader.cancel(signal.reason).catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

/**
 * Reads the server-sent events of a streamed chat completion and hands each parsed chunk to
 * `onChunk`, synchronously, in wire order, until `[DONE]` or the end of the body. Malformed JSON,
 * or JSON that is not an object, fails with a `SyntaxError` (a `malformed_response` for
 * `toModelError`); an error event
 * fails with the SDK's `APIError`; an abort of `signal` fails with the signal's reason.
 *
 * @example
 * ```ts
 * const response = await openChunkStream(completions, body, signal, 0);
 * await readChunks(response, signal, (chunk) => console.log(chunk.choices[0]?.delta));
 * ```
 */
export async function readChunks(
  response: Response,
  signal: AbortSignal,
  onChunk: (chunk: Chunk) => void,
): Promise<void> {
  const source = response.body;
  if (!source) {
    throw new ModelError('the model server answered a streamed request without a body', {
      code: 'malformed_response',
      retryable: true,
    });
  }
  let finished = false;
  const parser = createParser({
    onEvent(event) {
      if (finished) return;
      if (event.data === '[DONE]') {
        finished = true;
        return;
      }
      let payload: unknown;
      try {
        payload = JSON.parse(event.data);
      } catch {
        throw new SyntaxError(
          `Error reading response: malformed server-sent event JSON: ${JSON.stringify(event.data.slice(0, 200))}`,
        );
      }
      if (event.event === 'error') throw streamedError(payload, true, response.headers);
      if (payload === null || typeof payload !== 'object') {
        throw new SyntaxError(
          `Error reading response: a server-sent event that is not a JSON object: ${JSON.stringify(event.data.slice(0, 200))}`,
        );
      }
      const error = (payload as { error?: unknown }).error;
      if (error) throw streamedError(error, false, response.headers);
      onChunk(payload as Chunk);
    },
  });
  const reader = source.getReader();
  const decoder = new TextDecoder();
  // The client's fetch ends the body on abort too; this also covers a body that is not tied to the signal.
  const unlink = cancelOnAbort(signal, reader);
  let ended = false;
  try {
    while (!finished && !signal.aborted) {
      const { done, value } = await reader.read();
      if (signal.aborted) break;
      if (done) {
        ended = true;
        // A last event without its closing blank line still counts, as in the SDK.
        parser.feed(`${decoder.decode()}\n\n`);
        break;
      }
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch (e) {
    ended = true; // the body failed (or a parse did: cancelled below)
    if (!signal.aborted) {
      reader.cancel().catch(() => undefined);
      throw e;
    }
  } finally {
    unlink();
  }
  if (signal.aborted) {
    if (!ended) reader.cancel().catch(() => undefined);
    throw signal.reason;
  }
  if (!ended) finishBody(reader);
}
