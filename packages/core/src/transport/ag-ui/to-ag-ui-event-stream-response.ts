import { EventType } from '@ag-ui/core';
import { map, type Observable } from 'rxjs';
import type { AgentEvent } from '../../event/events.js';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';
import { framesResponse } from '../frames-response.js';
import { encodeServerSentEvent } from '../sse-encode.js';
import { withSseHeartbeats } from '../to-server-sent-events.js';
import { toAgUiEvents, type ToAgUiEventsOptions } from './to-ag-ui-events.js';

/** Options of {@link toAgUiEventStreamResponse}: the mapping's, and the response's. */
export interface AgUiEventStreamResponseOptions extends ToAgUiEventsOptions {
  /** Status of the response. Default 200. */
  readonly status?: number;
  /** Headers added to the SSE ones. */
  readonly headers?: HeadersInit;
  /** A comment frame after this many ms without an event. `0` disables. Default 15,000. */
  readonly heartbeatMs?: number;
}

const OPTION_KEYS = optionKeys<AgUiEventStreamResponseOptions>({
  status: true,
  headers: true,
  heartbeatMs: true,
  threadId: true,
  runId: true,
  source: true,
  messages: true,
  state: true,
  tools: true,
});

/**
 * A Web `Response` streaming a reply as AG-UI events (SSE `data:` messages, what `HttpAgent`
 * reads; the reply mapped with {@link toAgUiEvents}), for fetch-style servers (Next.js route
 * handlers, Hono, workers). A client that goes away cancels the stream, which cancels the reply;
 * a failure after the start ends it with `RUN_ERROR`.
 *
 * @example
 * ```ts
 * export async function POST(req: Request) {
 *   const { threadId, text } = await req.json();
 *   return toAgUiEventStreamResponse(agentFor(threadId).reply(text), { threadId });
 * }
 * ```
 */
export function toAgUiEventStreamResponse(
  events$: Observable<AgentEvent>,
  options: AgUiEventStreamResponseOptions = {},
): Response {
  checkOptionKeys('toAgUiEventStreamResponse', options, OPTION_KEYS);
  const { status, headers, heartbeatMs, ...mapping } = options;
  const frames$ = withSseHeartbeats(
    events$.pipe(
      toAgUiEvents(mapping),
      map((e) => encodeServerSentEvent({ data: JSON.stringify(e) })),
    ),
    { heartbeatMs: heartbeatMs ?? 15_000 },
  );
  const failed = (error: unknown) => [
    encodeServerSentEvent({
      data: JSON.stringify({
        type: EventType.RUN_ERROR,
        message: error instanceof Error ? error.message : String(error),
        timestamp: Date.now(),
      }),
    }),
  ];
  return framesResponse(frames$, { status: status ?? 200, ...(headers ? { headers } : {}) }, failed);
}
