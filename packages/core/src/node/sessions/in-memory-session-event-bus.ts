import { Observable } from 'rxjs';
import type { AgentEvent } from '../../event/events.js';
import { nextOpenReply, replayGapEvent, type SessionEventBus, type SessionEventsOptions } from './session-event-bus.js';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';

/** Options of {@link InMemorySessionEventBus}. */
export interface InMemorySessionEventBusOptions {
  /** Events kept per session for replay (the oldest are dropped). Default 1,000. */
  readonly maxEvents?: number;
  /**
   * Sessions whose logs are kept. Past it, the log of the session that was written to least
   * recently and has no listener and no reply in progress is dropped (a client resuming it later
   * gets the replay-gap notice). Default 10,000.
   */
  readonly maxSessions?: number;
}

interface Entry {
  readonly seq: number;
  readonly event: AgentEvent;
}

interface SessionLog {
  entries: Entry[];
  seq: number;
  /** Sequence number of the `REPLY_START` of the reply in progress. */
  openStart: number | undefined;
  openReply: string | undefined;
  readonly listeners: Set<(entry: Entry) => void>;
}

// Every option, typed against InMemorySessionEventBusOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<InMemorySessionEventBusOptions>({
  maxEvents: true,
  maxSessions: true,
});

/**
 * A {@link SessionEventBus} in this process: a bounded replay log per session and synchronous
 * delivery to listeners. For one Node process; use `RedisSessionEventBus` when several serve
 * the same sessions.
 *
 * @example
 * ```ts
 * const sessions = new AgentSessions({ agent: (id) => makeAgent(id), bus: new InMemorySessionEventBus({ maxEvents: 500 }) });
 * ```
 */
export class InMemorySessionEventBus implements SessionEventBus {
  private readonly maxEvents: number;
  private readonly maxSessions: number;
  /** In order of last append (a Map keeps insertion order): the first are the idlest. */
  private readonly logs = new Map<string, SessionLog>();

  constructor(options: InMemorySessionEventBusOptions = {}) {
    checkOptionKeys('InMemorySessionEventBus', options, OPTION_KEYS);
    this.maxEvents = Math.max(1, options.maxEvents ?? 1000);
    this.maxSessions = Math.max(1, options.maxSessions ?? 10_000);
  }

  /** Number of sessions whose logs are kept. */
  get size(): number {
    return this.logs.size;
  }

  append(sessionId: string, event: AgentEvent): Promise<void> {
    const log = this.log(sessionId);
    this.logs.delete(sessionId);
    this.logs.set(sessionId, log);
    const entry = { seq: ++log.seq, event };
    log.entries.push(entry);
    if (log.entries.length > this.maxEvents) log.entries.splice(0, log.entries.length - this.maxEvents);
    const open = nextOpenReply(log.openReply, event);
    if (open !== log.openReply) log.openStart = open === undefined ? undefined : entry.seq;
    log.openReply = open;
    for (const listener of [...log.listeners]) listener(entry);
    return Promise.resolve();
  }

  events(sessionId: string, options: SessionEventsOptions = {}): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      const log = this.log(sessionId);
      // Listen first (buffering), so that nothing appended while the replay is emitted is lost:
      // the replay holds entries up to `end`, the buffer those after it.
      const end = log.seq;
      let last = end;
      let buffer: Entry[] | undefined = [];
      const listener = (entry: Entry) => {
        if (buffer) buffer.push(entry);
        else if (entry.seq > last) {
          last = entry.seq;
          subscriber.next(entry.event);
        }
      };
      log.listeners.add(listener);
      const replay = this.replay(log, options.lastEventId);
      for (const event of replay.head) subscriber.next(event);
      for (const entry of replay.entries) {
        if (subscriber.closed) break;
        subscriber.next(entry.event);
      }
      last = end;
      const pending = buffer;
      buffer = undefined;
      for (const entry of pending) listener(entry);
      return () => {
        log.listeners.delete(listener);
      };
    });
  }

  openReply(sessionId: string): Promise<string | undefined> {
    return Promise.resolve(this.logs.get(sessionId)?.openReply);
  }

  openReplyEvents(sessionId: string): Promise<AgentEvent[]> {
    const log = this.logs.get(sessionId);
    const start = log?.openStart;
    if (!log || start === undefined) return Promise.resolve([]);
    return Promise.resolve(log.entries.filter((e) => e.seq >= start).map((e) => e.event));
  }

  delete(sessionId: string): Promise<void> {
    const log = this.logs.get(sessionId);
    if (log) {
      log.entries = [];
      log.openReply = undefined;
      log.openStart = undefined;
      if (!log.listeners.size) this.logs.delete(sessionId);
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.logs.clear();
    return Promise.resolve();
  }

  private replay(log: SessionLog, lastEventId: string | undefined): { head: AgentEvent[]; entries: Entry[] } {
    if (lastEventId !== undefined) {
      const at = log.entries.findIndex((e) => e.event.id === lastEventId);
      return at >= 0
        ? { head: [], entries: log.entries.slice(at + 1) }
        : { head: [replayGapEvent(lastEventId)], entries: log.entries.slice() };
    }
    if (log.openStart === undefined) return { head: [], entries: [] };
    const start = log.openStart;
    return { head: [], entries: log.entries.filter((e) => e.seq >= start) };
  }

  private log(sessionId: string): SessionLog {
    let log = this.logs.get(sessionId);
    if (!log) {
      log = { entries: [], seq: 0, openStart: undefined, openReply: undefined, listeners: new Set() };
      this.logs.set(sessionId, log);
      this.evict();
    }
    return log;
  }

  private evict(): void {
    for (const [id, log] of this.logs) {
      if (this.logs.size <= this.maxSessions) return;
      if (!log.listeners.size && log.openReply === undefined) this.logs.delete(id);
    }
  }
}
