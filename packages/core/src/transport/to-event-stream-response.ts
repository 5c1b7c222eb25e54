import type { Observable } from 'rxjs';
import type { AgentEvent } from '../event/events.js';
import { checkOptionKeys, optionKeys } from '../error/check-option-keys.js';
import { toErrorInfo } from '../model/model-error.js';
import { createEvent } from '../event/create.js';
import { encodeAgentEvent } from './sse-encode.js';
import { framesResponse } from './frames-response.js';
import { toServerSentEvents, type ServerSentEventsOptions } from './to-server-sent-events.js';

/** Options of {@link toEventStreamResponse}: the `Response` init, and the SSE options. */
export interface EventStreamResponseOptions extends ServerSentEventsOptions {
  /** Status of the response. Default 200. */
  readonly status?: number;
  /** Headers added to the SSE ones (`content-type: text/event-stream`, `cache-control: no-cache`). */
  readonly headers?: HeadersInit;
}

const OPTION_KEYS = optionKeys<EventStreamResponseOptions>({
  status: true,
  headers: true,
  heartbeatMs: true,
  heartbeatComment: true,
  retryMs: true,
  scheduler: true,
});

/**
 * A Web `Response` streaming a reply as Server-Sent Events (each event a `data:` message with its
 * id, heartbeats in between), for fetch-style servers: Next.js route handlers, Hono, Bun, Deno,
 * workers. The reply runs while the body is read: a client that goes away cancels the stream,
 * which unsubscribes from the reply (its model request and tools are cancelled). What
 * `fromAgentEventStream` reads in the browser.
 *
 * @example
 * ```ts
 * // app/api/chat/route.ts (Next.js)
 * export async function POST(req: Request) {
 *   const { message } = await req.json();
 *   return toEventStreamResponse(agent.reply(message));
 * }
 * ```
 */
export function toEventStreamResponse(
  events$: Observable<AgentEvent>,
  options: EventStreamResponseOptions = {},
): Response {
  checkOptionKeys('toEventStreamResponse', options, OPTION_KEYS);
  const { status, headers, ...sse } = options;
  const frames$ = toServerSentEvents(events$, sse, (event) => encodeAgentEvent(event, { id: true }));
  // A stream error (the reply refused its input) is the last event: a REPLY_END with the error.
  const failed = (error: unknown) => [
    encodeAgentEvent(
      createEvent(
        'REPLY_END',
        { finishReason: 'error', error: toErrorInfo(error) },
        { replyId: '', source: 'rxscope' },
      ),
    ),
  ];
  return framesResponse(frames$, { status: status ?? 200, ...(headers ? { headers } : {}) }, failed);
}
