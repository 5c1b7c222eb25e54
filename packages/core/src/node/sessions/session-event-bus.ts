import type { Observable } from 'rxjs';
import { createEvent } from '../../event/create.js';
import type { AgentEvent } from '../../event/events.js';
import { REPLAY_GAP } from '../../transport/replay-gap.js';

/** Options of {@link SessionEventBus.events}. */
export interface SessionEventsOptions {
  /**
   * Resume after this event (a client's `Last-Event-ID`): every later event the log holds, then
   * live ones. When the log no longer holds it, the stream starts with a `CUSTOM`
   * {@link REPLAY_GAP} event, then the whole log. Without it: the events of the reply in
   * progress (from its `REPLY_START`), if any, then live ones.
   */
  readonly lastEventId?: string;
}

/**
 * Where the events of a session's replies go: a bounded replay log per session plus live
 * delivery to every listener, in one process (`InMemorySessionEventBus`) or across processes
 * (`RedisSessionEventBus`).
 *
 * @example
 * ```ts
 * await bus.append('s1', event);
 * bus.events('s1', { lastEventId: req.headers['last-event-id'] }).subscribe(send);
 * ```
 */
export interface SessionEventBus {
  /** Appends an event to the session's log and delivers it to the session's listeners, in append order. */
  append(sessionId: string, event: AgentEvent): Promise<void>;
  /** Replayed, then live, events of a session (see {@link SessionEventsOptions}). Never completes; unsubscribe to stop. */
  events(sessionId: string, options?: SessionEventsOptions): Observable<AgentEvent>;
  /** Forgets a session's log (its listeners stay subscribed). */
  delete(sessionId: string): Promise<void>;
  /** Releases connections and timers. */
  close(): Promise<void>;
  /**
   * The id of the session's reply in progress (its `REPLY_START` is on the log, its `REPLY_END`
   * not yet), in whichever process it runs; `undefined` when none. `sessions.wake()` asks it so
   * that a wake-up never starts a reply while one of the session runs in another process.
   * Optional: a bus without it is asked nothing.
   */
  openReply?(sessionId: string): Promise<string | undefined>;
  /**
   * The events of the session's reply in progress, from its `REPLY_START` (empty when none is
   * open). A reply recovered in another process after a crash reads them to continue the dead
   * attempt's stream on the bus without a second `REPLY_START` (see `spliceRecoveredReply`).
   * Optional: without it a recovered reply starts over on the bus.
   */
  openReplyEvents?(sessionId: string): Promise<AgentEvent[]>;
}

/** The event a replay starts with when the requested event is no longer in the log. */
export function replayGapEvent(lastEventId: string): AgentEvent {
  return createEvent('CUSTOM', { name: REPLAY_GAP, value: { lastEventId } }, { replyId: '', source: 'rxscope' });
}

/**
 * Follows which reply of a session is in progress: the first `REPLY_START` while none is open
 * opens one, its `REPLY_END` closes it (subagent replies nested inside do not count).
 */
export function nextOpenReply(open: string | undefined, event: AgentEvent): string | undefined {
  if (open === undefined) return event.type === 'REPLY_START' ? event.replyId : undefined;
  return event.type === 'REPLY_END' && event.replyId === open ? undefined : open;
}
