/// <reference types="node" />
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defer, type Observable, switchMap } from 'rxjs';
import { claimOnSubscribe } from '../../agent/session-claim.js';
import { checkUserId } from '../../agent/user-identity.js';
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
  /** The request's session, from the handler's `sessionId` option (`undefined` without one). */
  readonly sessionId: string | undefined;
  /**
   * The user the request comes from, as the handler's `identify(req)` answered (`undefined`
   * without `identify`, or for an anonymous request). Pass it on: `agent.reply(input, { userId })`,
   * `sessions.start(id, input, { userId })`, `sessions.events(id, { userId })`.
   */
  readonly userId: string | undefined;
}

/** Options of {@link createAgentSseHandler}. */
export interface AgentSseHandlerOptions extends Omit<StreamAgentEventsOptions, 'sessionId'> {
  /**
   * The session a request belongs to (from a route parameter, a header, a cookie...), or one id
   * for all. An `agent.reply()` streamed for a request is served to its session: one `Agent` is
   * one conversation, so an agent streamed for two sessions is refused with an `AgentSharedError`
   * (a 500, before anything reaches the model) unless `shared` is set. Without `sessionId` every
   * request is its own session. A throw or a rejection becomes an HTTP error.
   */
  readonly sessionId?:
    | string
    | ((
        req: IncomingMessage,
        request: Omit<AgentSseRequest, 'sessionId'>,
      ) => string | undefined | Promise<string | undefined>);
  /**
   * The events to stream for a request: usually the reply of the request's session agent
   * (`(await sessions.agent(sessionId)).reply(input)`: a reply per request, cancelled when the
   * client goes away) or a session's event log (`sessions.events(id, ...)`, where going away only
   * stops listening). A throw or a rejection becomes an HTTP error.
   */
  readonly events: (
    req: IncomingMessage,
    request: AgentSseRequest,
  ) => Observable<AgentEvent> | Promise<Observable<AgentEvent>>;
  /**
   * Who sends the request: the user id (from your authentication: a verified token, a session
   * cookie) handed to `events` as `request.userId`. Return `undefined` for an anonymous request;
   * throw an `HttpError(401, ...)` to refuse it. Anything but a non-empty string or `undefined`
   * is an `InvalidUserIdError`. A session of another user is then answered 403.
   */
  readonly identify?: (req: IncomingMessage) => string | undefined | Promise<string | undefined>;
}

// Every option, typed against AgentSseHandlerOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<AgentSseHandlerOptions>({
  events: true,
  identify: true,
  shared: true,
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
 * // An Agent is one conversation: one per session.
 * const sessions = new AgentSessions({ agent: (sessionId) => new Agent({ model, sessionId }) });
 * const chat = createAgentSseHandler({
 *   sessionId: (_req, { url }) => url.searchParams.get('session') ?? undefined, // an unguessable id
 *   events: async (_req, { body, sessionId }) => {
 *     if (!sessionId) throw new HttpError(400, 'Add ?session=<id>.', 'no_session');
 *     return (await sessions.agent(sessionId)).reply(((await body()) as { message: string }).message);
 *   },
 * });
 * createServer(chat).listen(3000);
 * ```
 */
export function createAgentSseHandler(
  options: AgentSseHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<StreamOutcome> {
  checkOptionKeys('createAgentSseHandler', options, OPTION_KEYS);
  const { events, sessionId, identify, ...streamOptions } = options;
  return (req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const header = req.headers['last-event-id'];
    const lastEventId =
      (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('lastEventId') ?? undefined;
    let session: string | undefined;
    const events$ = defer(async () => {
      const base = {
        url,
        lastEventId: lastEventId || undefined,
        body: () => readJsonRequest(req),
        userId: checkUserId(await identify?.(req), 'identify(req)'),
      };
      session = typeof sessionId === 'function' ? await sessionId(req, base) : sessionId;
      return events(req, { ...base, sessionId: session });
    }).pipe(
      // The reply is subscribed here, after the callback resolved: claim its agent for this session.
      switchMap((inner) =>
        inner.pipe(
          claimOnSubscribe({
            session: session ?? Symbol('request'),
            by: 'createAgentSseHandler',
            shared: options.shared,
          }),
        ),
      ),
    );
    return streamAgentEvents(res, events$, {
      ...streamOptions,
      ...(typeof sessionId === 'string' ? { sessionId } : {}),
    });
  };
}

async function readJsonRequest(req: IncomingMessage): Promise<unknown> {
  requireJsonContentType(req, 'The request body');
  return readJsonBody(req);
}
