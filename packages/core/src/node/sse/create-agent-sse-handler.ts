/// <reference types="node" />
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defer, from, type Observable, switchMap } from 'rxjs';
import type { AgentEvent } from '../../event/events.js';
import { requireJsonContentType } from './json-content-type.js';
import { readJsonBody } from './read-json-body.js';
import { streamAgentEvents, type StreamAgentEventsOptions, type StreamOutcome } from './stream-agent-events.js';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';

/** What the `events` callback of {@link createAgentSseHandler} gets besides the request. */
export interface AgentSseRequest {
  /** The request URL (path and query), resolved against the Host header. */
  readonly url: URL;
  /** The `Last-Event-ID` header, else the `lastEventId` query parameter (for a first `EventSource` connection). */
  readonly lastEventId: string | undefined;
  /**
   * The JSON body (see `readJsonBody`). A body not sent as `application/json` (or a `+json` type)
   * is refused with a 415 `unsupported_media_type`: a `text/plain`, form or multipart POST is what
   * a browser sends cross-site without a CORS preflight. No body and no content type: `undefined`.
   */
  readonly body: () => Promise<unknown>;
}

/** Options of {@link createAgentSseHandler}. */
export interface AgentSseHandlerOptions extends StreamAgentEventsOptions {
  /**
   * The events to stream for a request: usually `agent.reply(input)` (a reply per request,
   * cancelled when the client goes away) or a session's event log (`sessions.events(id, ...)`,
   * where going away only stops listening). A throw or a rejection becomes an HTTP error.
   */
  readonly events: (
    req: IncomingMessage,
    request: AgentSseRequest,
  ) => Observable<AgentEvent> | Promise<Observable<AgentEvent>>;
}

// Every option, typed against AgentSseHandlerOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<AgentSseHandlerOptions>({
  events: true,
  headers: true,
  maxQueuedBytes: true,
  onError: true,
  sessionId: true,
  heartbeatMs: true,
  heartbeatComment: true,
  retryMs: true,
  scheduler: true,
});

/**
 * A Node `http` request handler that streams the events {@link AgentSseHandlerOptions.events}
 * returns as server-sent events, with {@link streamAgentEvents} (heartbeats, back-pressure,
 * cancellation on disconnect, HTTP errors before the stream, the error end during it). Usable
 * as-is with `http.createServer` and as an Express handler; in Fastify, call it with
 * `request.raw` and `reply.raw` after `reply.hijack()`. Resolves when the response is over.
 *
 * @example
 * ```ts
 * const chat = createAgentSseHandler({
 *   events: async (req, { body }) => agent.reply(((await body()) as { message: string }).message),
 * });
 * createServer(chat).listen(3000);
 * ```
 */
export function createAgentSseHandler(
  options: AgentSseHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<StreamOutcome> {
  checkOptionKeys('createAgentSseHandler', options, OPTION_KEYS);
  const { events, ...streamOptions } = options;
  return (req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const header = req.headers['last-event-id'];
    const lastEventId =
      (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('lastEventId') ?? undefined;
    const request: AgentSseRequest = { url, lastEventId: lastEventId || undefined, body: () => readJsonRequest(req) };
    const events$ = defer(() => from(Promise.resolve(events(req, request)))).pipe(switchMap((inner) => inner));
    return streamAgentEvents(res, events$, streamOptions);
  };
}

async function readJsonRequest(req: IncomingMessage): Promise<unknown> {
  requireJsonContentType(req, 'The request body');
  return readJsonBody(req);
}
