/// <reference types="node" />
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { type Observable, Subscription, tap } from 'rxjs';
import { claimOnSubscribe } from '../../agent/session-claim.js';
import type { AgentEvent } from '../../event/events.js';
import { REPLAY_GAP } from '../../transport/replay-gap.js';
import { encodeAgentEvent, encodeServerSentEvent } from '../../transport/sse-encode.js';
import { toServerSentEvents, type ServerSentEventsOptions } from '../../transport/to-server-sent-events.js';
import { ReplyTracker } from '../reply-tracker.js';
import { sendHttpError } from './http-error.js';

/** Options of {@link streamAgentEvents} (and of `createAgentSseHandler`). */
export interface StreamAgentEventsOptions extends ServerSentEventsOptions {
  /** Extra response headers (CORS, cookies...), on the stream and on an error response. */
  readonly headers?: OutgoingHttpHeaders;
  /**
   * Bytes held while the client does not read (the socket buffer is full). Past this the
   * connection is dropped (a session stream's client reconnects with `Last-Event-ID`; a reply
   * stream's reply is cancelled). Default 16 MiB.
   */
  readonly maxQueuedBytes?: number;
  /** Receives failures: errors before the stream (5xx only) and failures mid-stream. Default: `console.error`. */
  readonly onError?: (error: unknown) => void;
  /**
   * The session these events belong to: written into synthesised `REPLY_END` events, and the
   * session an `agent.reply()` streamed here is served to. An `Agent` is one conversation, so one
   * agent streamed for two sessions is refused with an `AgentSharedError` (a 500, before anything
   * is sent to the model) unless `shared` is set. Without a session id every call is its own
   * session: one agent streamed twice is refused.
   */
  readonly sessionId?: string;
  /**
   * Declares that one agent may serve every session here (a single-user tool, a demo): its
   * conversation, and its queue of replies, are then common to all of them. Default `false`.
   */
  readonly shared?: boolean;
}

/** How a streamed response ended. */
export type StreamOutcome =
  /** The events completed; the response ended normally. */
  | 'completed'
  /** The client went away first; the events were unsubscribed (a reply is cancelled). */
  | 'client_closed'
  /** The events failed: an HTTP error before the stream, or the error end mid-stream. */
  | 'error'
  /** The client did not read fast enough and the connection was dropped (see `maxQueuedBytes`). */
  | 'overflow';

/**
 * Streams agent events to a Node HTTP response as server-sent events, and settles when the
 * response is over. The stream starts (status 200, `text/event-stream`, `retry:` when
 * `retryMs` is given) at the first event or heartbeat; an error before that is an HTTP error
 * response ({@link sendHttpError}: 409 for a refused resume, the error's own `status`, ...). A
 * failure after it is the protocol's error end: every open block closed and
 * `REPLY_END {finishReason: 'error', error}` for every open reply (sent without `id:`: they are
 * in no replay log), then the response ends. Back-pressure: when `res.write` returns false,
 * frames are queued (in order, none lost) until `'drain'`. The client closing the connection
 * unsubscribes the events, which cancels a reply down to its model request and tools.
 *
 * @example
 * ```ts
 * // An Agent is one conversation: here a new one per request (see AgentSessions for one per session).
 * createServer((req, res) => void streamAgentEvents(res, defer(() => new Agent({ model }).reply('Hello')), { heartbeatMs: 10_000 })).listen(3000);
 * ```
 */
export function streamAgentEvents(
  res: ServerResponse,
  events$: Observable<AgentEvent>,
  options: StreamAgentEventsOptions = {},
): Promise<StreamOutcome> {
  const tracker = new ReplyTracker();
  const { retryMs: _retry, shared, ...frameOptions } = options;
  const claim = claimOnSubscribe<AgentEvent>({
    session: options.sessionId ?? Symbol('request'),
    by: 'streamAgentEvents',
    shared,
  });
  const frames$ = toServerSentEvents(
    events$.pipe(
      claim,
      tap((event) => tracker.apply(event)),
    ),
    frameOptions,
    (event) =>
      // A replay gap notice is in no log: a client must not resume from it.
      encodeAgentEvent(event, { id: !(event.type === 'CUSTOM' && event.name === REPLAY_GAP) }),
  );
  return streamFrames(res, frames$, {
    ...options,
    errorFrames: (error) =>
      tracker.end('error', error, options.sessionId).map((event) => encodeAgentEvent(event, { id: false })),
  });
}

/** Options of {@link streamFrames}. */
export interface StreamFramesOptions extends Omit<
  StreamAgentEventsOptions,
  'heartbeatMs' | 'heartbeatComment' | 'scheduler' | 'sessionId' | 'shared'
> {
  /** The frames that end the stream when `frames$` fails after the stream started. */
  readonly errorFrames: (error: unknown) => readonly string[];
}

/**
 * Writes `text/event-stream` frames (heartbeats included) to a Node response: the part of
 * {@link streamAgentEvents} that knows nothing of rxscope events, for other event protocols
 * (the AG-UI handler). Same start, error, back-pressure and disconnect rules.
 *
 * @example
 * ```ts
 * await streamFrames(res, frames$, { errorFrames: (e) => [encodeServerSentEvent({ data: JSON.stringify({ type: 'RUN_ERROR', message: String(e) }) })] });
 * ```
 */
export function streamFrames(
  res: ServerResponse,
  frames$: Observable<string>,
  options: StreamFramesOptions,
): Promise<StreamOutcome> {
  const maxQueued = options.maxQueuedBytes ?? 16 * 1024 * 1024;
  const report = options.onError ?? ((error: unknown) => console.error('[rxscope] event stream failed:', error));
  return new Promise<StreamOutcome>((resolve) => {
    let started = false;
    let settled = false;
    let queue: string[] = [];
    let queued = 0;
    let waiting = false;
    let ending = false;

    const settle = (outcome: StreamOutcome) => {
      if (settled) return;
      settled = true;
      res.off('close', onClose);
      resolve(outcome);
    };
    const start = () => {
      if (started) return;
      started = true;
      res.writeHead(200, {
        ...options.headers,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      if (options.retryMs !== undefined) write(encodeServerSentEvent({ retry: options.retryMs }));
    };
    const write = (frame: string) => {
      if (res.destroyed) return;
      if (waiting) {
        queue.push(frame);
        queued += Buffer.byteLength(frame);
        if (queued > maxQueued) {
          settle('overflow');
          subscription.unsubscribe();
          res.destroy();
        }
        return;
      }
      if (!res.write(frame)) {
        waiting = true;
        res.once('drain', flush);
      }
    };
    const flush = () => {
      waiting = false;
      const pending = queue.join('');
      queue = [];
      queued = 0;
      if (pending) write(pending);
      if (!waiting && ending) res.end();
    };
    const end = () => {
      ending = true;
      if (!waiting) res.end();
    };
    const onClose = () => {
      if (settled) return;
      // Closed before we ended it: the client went away. Stop the events (cancels a reply).
      settle(ending ? 'completed' : 'client_closed');
      subscription.unsubscribe();
    };
    res.on('close', onClose);

    // Created first so that a synchronous overflow can unsubscribe what is being subscribed.
    const subscription = new Subscription();
    subscription.add(
      frames$.subscribe({
        next: (frame) => {
          start();
          write(frame);
        },
        error: (error: unknown) => {
          if (!started) {
            if (sendHttpError(res, error, options.headers) >= 500) report(error);
            settle('error');
            return;
          }
          report(error);
          for (const frame of options.errorFrames(error)) write(frame);
          settle('error');
          end();
        },
        complete: () => {
          start();
          settle('completed');
          end();
        },
      }),
    );
  });
}
