/// <reference types="node" />
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EventType, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { defer, from, map, ReplaySubject, switchMap, type Observable } from 'rxjs';
import type { BaseEvent } from '@ag-ui/core';
import type { AgentEvent } from '../../event/events.js';
import { assertSessionOwner } from '../../agent/user-identity.js';
import { OptionsError } from '../../error/options-error.js';
import { isConnectInput } from '../../transport/ag-ui/rxscope-http-agent.js';
import type { SessionEventBus } from '../sessions/session-event-bus.js';
import { connectEvents } from './ag-ui-connect.js';
import type { Agent } from '../../agent/agent.js';
import { claimAgent } from '../../agent/session-claim.js';
import { checkUserId } from '../../agent/user-identity.js';
import type { AgUiHistoryMode } from '../../transport/ag-ui/ag-ui-run-input.js';
import { RxscopeAgUiAgent } from '../../transport/ag-ui/rxscope-ag-ui-agent.js';
import { encodeServerSentEvent } from '../../transport/sse-encode.js';
import { withSseHeartbeats } from '../../transport/to-server-sent-events.js';
import { HttpError } from '../sse/http-error.js';
import { isJsonMediaType } from '../sse/json-content-type.js';
import { readJsonBody } from '../sse/read-json-body.js';
import { streamFrames, type StreamAgentEventsOptions, type StreamOutcome } from '../sse/stream-agent-events.js';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';

/** Options of {@link createAgUiHandler}. */
export interface AgUiHandlerOptions extends Omit<StreamAgentEventsOptions, 'sessionId'> {
  /**
   * A factory called once per AG-UI thread id (an `Agent` is one conversation: one per thread),
   * or one agent with `shared: true`. Serving one agent to two threads — an `Agent` given here, or
   * a factory returning the same one twice — is refused with an `AgentSharedError` (a 500, before
   * anything reaches the model) unless `shared` is set.
   */
  readonly agent: Agent | ((threadId: string) => Agent);
  /**
   * Declares that one agent may serve every thread (a single-user tool, a demo): its conversation,
   * and its queue of runs, are then common to all of them. Default `false`.
   */
  readonly shared?: boolean;
  /** How a run's `messages` reach the agent (see `AgUiHistoryMode`). Default `'seed'`. */
  readonly history?: AgUiHistoryMode;
  /** The largest `RunAgentInput` body accepted, in bytes; a larger one is a 413. Default 8 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Who sends the request: the user id the run acts for (`ctx.userId`), from your authentication
   * (a verified token, a session cookie). Return `undefined` for an anonymous run; throw an
   * `HttpError(401, ...)` to refuse the request. A thread another user owns is answered 403.
   */
  readonly identify?: (req: IncomingMessage) => string | undefined | Promise<string | undefined>;
  /**
   * The session event bus (`sessions.bus`, a `RedisSessionEventBus`...): every run's rxscope
   * events are appended to it under the thread id, so a client that reconnects
   * (`RxscopeHttpAgent.connectAgent()`) is replayed the run in progress. Without one, a reconnect
   * gets the thread as it is (messages and shared state).
   */
  readonly bus?: SessionEventBus;
  /**
   * What a client that goes away mid-run does to the run: `'cancel'` (default) cancels the reply
   * down to the model request, as `abortRun()` does; `'continue'` lets it run to its end (it ends
   * on its own: completed, suspended for a confirmation, or failed), for a client that reconnects.
   * With `'continue'`, `abortRun()` no longer stops a run: stop it on the server
   * (`agent.interrupt()`).
   */
  readonly disconnect?: 'cancel' | 'continue';
}

// Every option, typed against AgUiHandlerOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<AgUiHandlerOptions>({
  agent: true,
  shared: true,
  identify: true,
  bus: true,
  disconnect: true,
  history: true,
  maxBodyBytes: true,
  headers: true,
  maxQueuedBytes: true,
  onError: true,
  heartbeatMs: true,
  heartbeatComment: true,
  retryMs: true,
  scheduler: true,
});

/**
 * A Node `http` handler that speaks the AG-UI HTTP protocol, so `HttpAgent` of `@ag-ui/client`
 * (and any AG-UI frontend built on it) talks to an rxscope agent: it reads a `RunAgentInput`
 * (POST, `content-type: application/json` — anything else is a 415, so a cross-site form or
 * `text/plain` post cannot start a run without a CORS preflight —, at most `maxBodyBytes`,
 * validated with `@ag-ui/core`'s schema: a bad one is a 400), runs it as
 * {@link RxscopeAgUiAgent} does (new user messages, `resume` entries, results of frontend tools),
 * and streams the AG-UI events as SSE `data:` messages, with heartbeats, back-pressure, HTTP
 * errors before the stream (409 when the agent refuses the input) and `RUN_ERROR` when a failure
 * comes after. The client aborting its request cancels the reply down to the model request.
 *
 * @example
 * ```ts
 * import { createAgUiHandler } from '@rxscope/core/node/ag-ui';
 * // An Agent is one conversation: one per AG-UI thread.
 * createServer(createAgUiHandler({ agent: (threadId) => new Agent({ model, sessionId: threadId }) })).listen(8000);
 * // browser: new HttpAgent({ url: 'http://localhost:8000' }).runAgent()
 * ```
 */
export function createAgUiHandler(
  options: AgUiHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<StreamOutcome> {
  checkOptionKeys('createAgUiHandler', options, OPTION_KEYS);
  const {
    agent,
    history,
    shared,
    heartbeatMs,
    heartbeatComment,
    scheduler,
    maxBodyBytes = 8 * 1024 * 1024,
    identify,
    bus,
    disconnect = 'cancel',
    ...streamOptions
  } = options;
  if (disconnect !== 'cancel' && disconnect !== 'continue')
    throw new OptionsError(
      'invalid_option',
      'createAgUiHandler.disconnect',
      `createAgUiHandler: disconnect is 'cancel' or 'continue', got ${JSON.stringify(disconnect)}.`,
    );
  const report =
    streamOptions.onError ?? ((error: unknown) => console.error('[rxscope] AG-UI bus append failed:', error));
  const runner = new RxscopeAgUiAgent({ agent, ...(history ? { history } : {}) });
  return (req, res) => {
    const events$ = defer(() => from(identified(req, maxBodyBytes, identify))).pipe(
      switchMap(([input, userId]) => {
        const agent = runner.agentFor(input.threadId);
        claimAgent(agent, { session: input.threadId, by: 'createAgUiHandler', shared });
        if (isConnectInput(input)) {
          assertSessionOwner(agent.saveState().owner, input.threadId, userId);
          return connectEvents(agent, input, bus);
        }
        const run$ = runner.run(input, userId, bus ? appendTo(bus, input.threadId, report) : undefined);
        return disconnect === 'continue' ? detached(run$) : run$;
      }),
    );
    const frames$ = withSseHeartbeats(
      events$.pipe(map((event) => encodeServerSentEvent({ data: JSON.stringify(event) }))),
      { heartbeatMs, heartbeatComment, scheduler },
    );
    return streamFrames(res, frames$, {
      ...streamOptions,
      errorFrames: (error) => [
        encodeServerSentEvent({
          data: JSON.stringify({
            type: EventType.RUN_ERROR,
            message: error instanceof Error ? error.message : String(error),
            timestamp: Date.now(),
          }),
        }),
      ],
    });
  };
}

/** Appends each event to the bus, in order, without holding the stream up. */
function appendTo(bus: SessionEventBus, threadId: string, report: (error: unknown) => void): (e: AgentEvent) => void {
  let chain = Promise.resolve();
  return (event) => {
    chain = chain.then(() => bus.append(threadId, event)).catch(report);
  };
}

/** The run subscribed on its own, so it goes on when the client leaves; the client reads a replay of it. */
function detached(run$: Observable<BaseEvent>): Observable<BaseEvent> {
  // Every event of the run: the run is bounded (it ends on its own), and the subject goes with the request.
  const replay = new ReplaySubject<BaseEvent>(Infinity);
  run$.subscribe(replay);
  return replay.asObservable();
}

async function identified(
  req: IncomingMessage,
  maxBodyBytes: number,
  identify: AgUiHandlerOptions['identify'],
): Promise<[RunAgentInput, string | undefined]> {
  const userId = checkUserId(await identify?.(req), 'identify(req)');
  return [await readInput(req, maxBodyBytes), userId];
}

async function readInput(req: IncomingMessage, maxBodyBytes: number): Promise<RunAgentInput> {
  if (req.method !== 'POST')
    throw new HttpError(405, 'AG-UI runs are POSTed: a RunAgentInput as JSON.', 'method_not_allowed');
  if (!isJsonMediaType(req.headers['content-type']))
    throw new HttpError(415, 'AG-UI runs are sent as application/json.', 'unsupported_media_type');
  const parsed = RunAgentInputSchema.safeParse(await readJsonBody(req, maxBodyBytes));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(
      400,
      `Not a RunAgentInput: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}.`,
      'invalid_run_input',
    );
  }
  return parsed.data;
}
