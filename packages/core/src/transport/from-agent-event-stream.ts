import { createParser } from 'eventsource-parser';
import { defer, Observable, retry, throwError, timer } from 'rxjs';
import type { AgentEvent } from '../event/events.js';
import { isAgentEvent } from '../event/guards.js';
import { AgentStreamError } from './agent-stream-error.js';

/** Options of {@link fromAgentEventStream}. */
export interface AgentEventStreamOptions {
  /** Aborting it stops the stream with an error (the signal's reason). Unsubscribing needs no signal. */
  readonly signal?: AbortSignal;
  /** The `fetch` to use (a test double, an authenticated wrapper). Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Request options for a URL input (method, headers, body, credentials...). */
  readonly init?: RequestInit;
  /** Sent as `Last-Event-ID` on the first request: resume after that event. */
  readonly lastEventId?: string;
  /**
   * Reconnect after a network failure or a retryable HTTP status (5xx, 408, 429), sending the id
   * of the last event received as `Last-Event-ID` — for streams a GET can open again (a
   * session's event stream), not for a POST that starts a reply. `true`: unlimited attempts;
   * the delay is the server's `retry:` or `delayMs` (default 1,000 ms). The attempt count
   * resets whenever an event arrives. Default: no reconnection.
   */
  readonly reconnect?: boolean | { readonly attempts?: number; readonly delayMs?: number };
}

/**
 * Reads a server-sent event stream of rxscope events (what `createAgentSseHandler` serves) as an
 * `Observable<AgentEvent>`, with `fetch` and eventsource-parser; browser-safe. Cold: every
 * subscription makes its own request (a `Response` can be read once). Unsubscribing aborts the
 * request. Each message's data is parsed as JSON and checked with `isAgentEvent`; anything else
 * fails the stream with an {@link AgentStreamError} naming the message's id. Comment lines
 * (heartbeats) are skipped. Completes when the server ends the response.
 *
 * @example
 * ```ts
 * const events$ = fromAgentEventStream(`/api/sessions/${id}/events`, { reconnect: true });
 * events$.pipe(textOf()).subscribe((text) => (answer.textContent = text));
 * ```
 */
export function fromAgentEventStream(
  input: string | URL | Request | Response,
  options: AgentEventStreamOptions = {},
): Observable<AgentEvent> {
  const reconnect = options.reconnect === true ? {} : options.reconnect || undefined;
  return defer(() => {
    // Per subscription: the resume point and the server's retry delay survive reconnections.
    const state = { lastEventId: options.lastEventId, serverRetryMs: undefined as number | undefined };
    const once = readOnce(input, options, state);
    if (!reconnect) return once;
    return once.pipe(
      retry({
        count: reconnect.attempts ?? Infinity,
        resetOnSuccess: true,
        delay: (error: unknown) => {
          if (error instanceof AgentStreamError && error.retryable && !(input instanceof Response)) {
            return timer(state.serverRetryMs ?? reconnect.delayMs ?? 1_000);
          }
          // Not worth another attempt: fail with the error as it is (an abort reason included).
          // eslint-disable-next-line rxjs-x/throw-error
          return throwError(() => error);
        },
      }),
    );
  });
}

interface StreamState {
  lastEventId: string | undefined;
  serverRetryMs: number | undefined;
}

function readOnce(
  input: string | URL | Request | Response,
  options: AgentEventStreamOptions,
  state: StreamState,
): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    const controller = new AbortController();
    const outer = options.signal;
    const onAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) {
      subscriber.error(outer.reason);
      return undefined;
    }
    outer?.addEventListener('abort', onAbort, { once: true });
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

    const run = async () => {
      const response =
        input instanceof Response
          ? input
          : await (options.fetch ?? globalThis.fetch)(request(input, options, state), { signal: controller.signal });
      if (!response.ok) {
        const body = await response.text().catch(() => '');
        throw new AgentStreamError(
          'http',
          `The event stream request failed with HTTP ${response.status}${summary(body)}`,
          {
            status: response.status,
            body,
          },
        );
      }
      const type = response.headers.get('content-type') ?? '';
      if (!type.startsWith('text/event-stream') || !response.body) {
        await response.body?.cancel().catch(() => undefined);
        throw new AgentStreamError(
          'not_event_stream',
          `Expected a text/event-stream response, got "${type || 'no content type'}".`,
          {
            status: response.status,
          },
        );
      }
      const parser = createParser({
        onRetry: (ms) => (state.serverRetryMs = ms),
        onEvent: (message) => {
          const event = parseEvent(message.data, message.id);
          if (message.id !== undefined) state.lastEventId = message.id;
          subscriber.next(event);
        },
      });
      reader = response.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (cause) {
          throw network(cause);
        }
        if (subscriber.closed) return;
        if (chunk.done) break;
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
      parser.feed(decoder.decode());
      subscriber.complete();
    };

    run().catch((error: unknown) => {
      if (subscriber.closed) return;
      if (outer?.aborted) subscriber.error(outer.reason);
      else subscriber.error(error instanceof AgentStreamError ? error : network(error));
    });

    return () => {
      outer?.removeEventListener('abort', onAbort);
      controller.abort(new Error('the subscriber unsubscribed'));
      reader?.cancel().catch(() => undefined);
    };
  });
}

function request(input: string | URL | Request, options: AgentEventStreamOptions, state: StreamState): Request {
  const req = input instanceof Request ? input.clone() : new Request(input, options.init);
  if (!req.headers.has('accept')) req.headers.set('accept', 'text/event-stream');
  if (state.lastEventId !== undefined) req.headers.set('last-event-id', state.lastEventId);
  return req;
}

function parseEvent(data: string, id: string | undefined): AgentEvent {
  const where = id === undefined ? 'an SSE message without id' : `SSE message "${id}"`;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new AgentStreamError('invalid_event', `The data of ${where} is not JSON: ${summary(data).slice(2)}`, {
      ...(id !== undefined ? { eventId: id } : {}),
    });
  }
  if (!isAgentEvent(value)) {
    throw new AgentStreamError(
      'invalid_event',
      `The data of ${where} is not an AgentEvent (it needs a known "type" and string "id", "replyId", "source" and a numeric "createdAt"): ${summary(data).slice(2)}`,
      { ...(id !== undefined ? { eventId: id } : {}) },
    );
  }
  return value;
}

function network(cause: unknown): AgentStreamError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new AgentStreamError('network', `The event stream connection failed: ${why}`, { cause });
}

function summary(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return '';
  return `: ${trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed}`;
}
