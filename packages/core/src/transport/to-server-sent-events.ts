import {
  connect,
  endWith,
  ignoreElements,
  interval,
  map,
  merge,
  type Observable,
  type SchedulerLike,
  startWith,
  switchMap,
  takeUntil,
  asyncScheduler,
} from 'rxjs';
import type { AgentEvent } from '../event/events.js';
import { encodeAgentEvent, encodeServerSentComment, encodeServerSentEvent } from './sse-encode.js';

/** Options of {@link toServerSentEvents}. */
export interface ServerSentEventsOptions {
  /** A comment frame after this many ms without any frame (keeps proxies from closing an idle stream). `0` disables. Default 15,000. */
  readonly heartbeatMs?: number;
  /** The text of heartbeat comments. Default `'heartbeat'`. */
  readonly heartbeatComment?: string;
  /** Sent first as `retry: N`: the delay a client waits before reconnecting. Default: not sent. */
  readonly retryMs?: number;
  /** Scheduler of the heartbeat timer (tests pass a `TestScheduler`). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Turns an event stream into `text/event-stream` frames, ready to write to an HTTP response:
 * one frame per event (`id:` the event id, `event:` its type, `data:` the event as JSON), a
 * `retry:` frame first when `retryMs` is given, and a comment frame whenever the stream was idle
 * for `heartbeatMs`. Completes and errors with the events. Works anywhere (browser-safe); for a
 * complete Node HTTP response see `streamAgentEvents` and `createAgentSseHandler` in
 * `@rxscope/core/node`. `encode` replaces the frame of an event (default `encodeAgentEvent`).
 *
 * @example
 * ```ts
 * toServerSentEvents(agent.reply('hi'), { heartbeatMs: 10_000 }).subscribe((frame) => res.write(frame));
 * ```
 */
export function toServerSentEvents(
  events$: Observable<AgentEvent>,
  options: ServerSentEventsOptions = {},
  encode: (event: AgentEvent) => string = (event) => encodeAgentEvent(event),
): Observable<string> {
  const withHeartbeats = withSseHeartbeats(events$.pipe(map(encode)), options);
  return options.retryMs === undefined
    ? withHeartbeats
    : withHeartbeats.pipe(startWith(encodeServerSentEvent({ retry: options.retryMs })));
}

/**
 * Adds a heartbeat comment to a stream of SSE frames whenever it was idle for `heartbeatMs`
 * (default 15 s; `0`: none); completes and errors with the frames. Internal to the transports.
 */
export function withSseHeartbeats(
  frames$: Observable<string>,
  options: ServerSentEventsOptions = {},
): Observable<string> {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  if (heartbeatMs <= 0) return frames$;
  const heartbeat = encodeServerSentComment(options.heartbeatComment ?? 'heartbeat');
  const scheduler = options.scheduler ?? asyncScheduler;
  return frames$.pipe(
    connect((frames) =>
      merge(
        frames,
        frames.pipe(
          startWith(''),
          switchMap(() => interval(heartbeatMs, scheduler)),
          map(() => heartbeat),
          takeUntil(frames.pipe(ignoreElements(), endWith(true))),
        ),
      ),
    ),
  );
}
