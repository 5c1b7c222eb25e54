import { defer, filter, map, Observable, of, Subject, concat } from 'rxjs';
import {
  checkBusName,
  checkMax,
  checkQueueId,
  compareQueueIds,
  encodeBusMessage,
  type LogEntry,
  type LogPage,
  type LogReadOptions,
  type MessageBus,
} from './message-bus.js';
import { optionKeys } from '@rxscope/core';
import { refuseUnknownOptions } from '../options/index.js';

/** Options of {@link InMemoryMessageBus}. */
export interface InMemoryMessageBusOptions {
  /** Entries kept per replay log (the oldest are dropped). Default 1,000. */
  readonly maxLogEntries?: number;
}

// Every option, typed against InMemoryMessageBusOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<InMemoryMessageBusOptions>({
  maxLogEntries: true,
});

/**
 * A {@link MessageBus} in one process. Messages are copied through JSON on the way in, as they
 * would be on Redis: a receiver never shares an object with the sender.
 *
 * @example
 * ```ts
 * const bus = new InMemoryMessageBus();
 * const agent = createHarnessAgent({ model, workspace: './ws', bus });
 * await bus.push('inbox:' + agent.sessionId, { text: 'Also update the changelog.' });
 * ```
 */
export class InMemoryMessageBus implements MessageBus {
  private readonly queues = new Map<string, { id: string; json: string }[]>();
  /** The last queue entry id given (`<ms>-<seq>`, as Redis stream ids: increasing, also across restarts). */
  private lastId = { ms: 0, seq: 0 };
  private readonly logs = new Map<string, { seq: number; entries: { id: string; json: string }[] }>();
  private readonly signals = new Subject<{ kind: 'queue' | 'channel'; name: string; json?: string }>();
  private readonly maxLogEntries: number;
  private closed = false;

  constructor(options: InMemoryMessageBusOptions = {}) {
    refuseUnknownOptions('InMemoryMessageBus', options, OPTION_KEYS);
    this.maxLogEntries = Math.max(1, options.maxLogEntries ?? 1000);
  }

  push<T>(queue: string, message: T): Promise<void> {
    return settle(() => {
      checkBusName('queue', queue);
      const json = encodeBusMessage(message);
      this.open();
      const entries = this.queues.get(queue) ?? [];
      entries.push({ id: this.nextId(), json });
      this.queues.set(queue, entries);
      this.signals.next({ kind: 'queue', name: queue });
    });
  }

  drain<T>(queue: string, options: { readonly max?: number } = {}): Promise<T[]> {
    return settle(() => {
      checkBusName('queue', queue);
      const entries = this.queues.get(queue);
      if (!entries?.length) return [];
      const max = checkMax('drain', options.max);
      const taken = entries.splice(0, max || entries.length);
      if (!entries.length) this.queues.delete(queue);
      return taken.map((e) => JSON.parse(e.json) as T);
    });
  }

  peek<T>(queue: string, options: { readonly after?: string; readonly max?: number } = {}): Promise<LogEntry<T>[]> {
    return settle(() => {
      checkBusName('queue', queue);
      const max = checkMax('peek', options.max);
      const after = options.after;
      if (after !== undefined) checkQueueId('peek', after);
      const entries = (this.queues.get(queue) ?? []).filter(
        (e) => after === undefined || compareQueueIds(e.id, after) > 0,
      );
      return (max ? entries.slice(0, max) : entries).map((e) => ({ id: e.id, message: JSON.parse(e.json) as T }));
    });
  }

  ack(queue: string, upTo: string): Promise<void> {
    return settle(() => {
      checkBusName('queue', queue);
      checkQueueId('ack', upTo);
      const entries = this.queues.get(queue);
      if (!entries) return;
      const kept = entries.filter((e) => compareQueueIds(e.id, upTo) > 0);
      if (kept.length) this.queues.set(queue, kept);
      else this.queues.delete(queue);
    });
  }

  pushed(queue: string): Observable<void> {
    checkBusName('queue', queue);
    return concat(
      defer(() => of(undefined)),
      this.signals.pipe(
        filter((s) => s.kind === 'queue' && s.name === queue),
        map(() => undefined),
      ),
    );
  }

  append<T>(log: string, message: T): Promise<string> {
    return settle(() => {
      checkBusName('log', log);
      const json = encodeBusMessage(message);
      this.open();
      const entry = this.logs.get(log) ?? { seq: 0, entries: [] };
      const id = String(++entry.seq);
      entry.entries.push({ id, json });
      if (entry.entries.length > this.maxLogEntries) entry.entries.splice(0, entry.entries.length - this.maxLogEntries);
      this.logs.set(log, entry);
      return id;
    });
  }

  read<T>(log: string, options: LogReadOptions = {}): Promise<LogPage<T>> {
    return settle(() => {
      checkBusName('log', log);
      const limit = options.limit ?? 100;
      const after = options.after === undefined ? 0 : Number(options.after);
      if (!Number.isInteger(after) || after < 0)
        throw new TypeError(`MessageBus.read: "${options.after}" is not a cursor of this bus (an id read from it).`);
      const entries = (this.logs.get(log)?.entries ?? [])
        .filter((e) => Number(e.id) > after)
        .slice(0, limit)
        .map((e) => ({ id: e.id, message: JSON.parse(e.json) as T }));
      return { entries, cursor: entries.at(-1)?.id ?? options.after ?? '0' };
    });
  }

  publish<T>(channel: string, message: T): Promise<void> {
    return settle(() => {
      checkBusName('channel', channel);
      const json = encodeBusMessage(message);
      this.open();
      this.signals.next({ kind: 'channel', name: channel, json });
    });
  }

  subscribe<T>(channel: string): Observable<T> {
    checkBusName('channel', channel);
    return this.signals.pipe(
      filter((s) => s.kind === 'channel' && s.name === channel),
      map((s) => JSON.parse(s.json!) as T),
    );
  }

  delete(name: string): Promise<void> {
    return settle(() => {
      this.queues.delete(name);
      this.logs.delete(name);
    });
  }

  close(): Promise<void> {
    return settle(() => {
      this.closed = true;
      this.signals.complete();
    });
  }

  private nextId(): string {
    const now = Date.now();
    this.lastId = now > this.lastId.ms ? { ms: now, seq: 0 } : { ms: this.lastId.ms, seq: this.lastId.seq + 1 };
    return `${this.lastId.ms}-${this.lastId.seq}`;
  }

  private open(): void {
    if (this.closed) throw new Error('MessageBus: this bus is closed.');
  }
}

/** Runs `work` now; its value or its throw as a promise (the bus's methods never throw synchronously). */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (e) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
}
