import type { Observable } from 'rxjs';

/** One entry of a replay log: its id (a cursor) and the message. */
export interface LogEntry<T> {
  /** Opaque, increasing within the log; pass it as `after` to read on from there. */
  readonly id: string;
  readonly message: T;
}

/** What {@link MessageBus.read} returns. */
export interface LogPage<T> {
  readonly entries: readonly LogEntry<T>[];
  /** Where to read on: the last entry's id, or the `after` given when there was nothing new. */
  readonly cursor: string;
}

/** Options of {@link MessageBus.read}. */
export interface LogReadOptions {
  /** Read the entries after this cursor. Default: from the oldest entry still kept. */
  readonly after?: string;
  /** At most this many entries. Default 100. */
  readonly limit?: number;
}

/**
 * Messages between the parts of an agent, its replies and other processes, in three modes:
 *
 * - **queue** (`push`, `drain`, `pushed`): each entry is taken by exactly one `drain`, in push
 *   order, even with many consumers in many processes. `pushed` says when to drain. A consumer
 *   that must not lose an entry when it dies reads with `peek` (after a cursor it keeps) and
 *   removes the entries with `ack` once it has stored them.
 * - **replay log** (`append`, `read`): entries are kept (up to a bound) and read by cursor, by
 *   any number of readers, each at its own pace.
 * - **broadcast** (`publish`, `subscribe`): live delivery to every current subscriber; nothing
 *   is kept for later subscribers.
 *
 * Messages are JSON values (they cross processes). Names are free-form (`inbox:<session>`).
 * `InMemoryMessageBus` serves one process; `RedisMessageBus` many (Redis streams for queues and
 * logs, pub/sub for broadcast and for `pushed`).
 *
 * @example
 * ```ts
 * await bus.push('inbox:s1', { text: 'Also check the tests.' });
 * bus.pushed('inbox:s1').pipe(concatMap(() => bus.drain('inbox:s1'))).subscribe((messages) => deliver(messages));
 * ```
 */
export interface MessageBus {
  /** Adds a message at the end of a queue (and notifies `pushed` listeners in every process). */
  push<T>(queue: string, message: T): Promise<void>;
  /** Takes up to `max` (default all) entries from the front of a queue, atomically: no other drain gets them. */
  drain<T>(queue: string, options?: { readonly max?: number }): Promise<T[]>;
  /**
   * The entries of a queue after the cursor `after` (all without it), oldest first, up to `max`,
   * each with its id, **without taking them**: they stay until `ack` or `drain` removes them.
   * Ids increase in push order; pass the last one read as `after` to read on.
   */
  peek<T>(queue: string, options?: { readonly after?: string; readonly max?: number }): Promise<LogEntry<T>[]>;
  /** Removes the entries of a queue up to and including the id `upTo` (read with `peek`). */
  ack(queue: string, upTo: string): Promise<void>;
  /**
   * Emits when the queue may hold entries: once as soon as the listener is in place (entries
   * pushed before it), after every push from any process, and after a lost connection came
   * back. Drain when it emits; nothing is missed between the listener starting and a push.
   */
  pushed(queue: string): Observable<void>;
  /** Adds a message to a replay log (kept up to the bus's bound); resolves with its id. */
  append<T>(log: string, message: T): Promise<string>;
  /** Reads a replay log after a cursor. */
  read<T>(log: string, options?: LogReadOptions): Promise<LogPage<T>>;
  /** Delivers a message to the channel's current subscribers, in every process. */
  publish<T>(channel: string, message: T): Promise<void>;
  /** Messages published on the channel from now on. Never completes; unsubscribe to stop. */
  subscribe<T>(channel: string): Observable<T>;
  /** Forgets a queue's or log's entries. */
  delete(name: string): Promise<void>;
  /** Releases connections and timers; subscriptions end. */
  close(): Promise<void>;
}

/** Checks a `max` option: a positive integer, or 0 / absent for all. */
export function checkMax(method: string, max: unknown): number {
  const n = max ?? 0;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    throw new TypeError(`MessageBus.${method}: max must be a positive integer, got ${String(max)}.`);
  return n;
}

/** Checks a queue cursor (`<ms>-<seq>`, an id read with `peek`). */
export function checkQueueId(method: string, id: unknown): asserts id is string {
  if (typeof id !== 'string' || !/^\d+-\d+$/.test(id))
    throw new TypeError(
      `MessageBus.${method}: "${String(id)}" is not an entry id of this queue (an id read with peek).`,
    );
}

/** Compares two queue ids (`<ms>-<seq>`): negative, zero or positive. */
export function compareQueueIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am - bm || as - bs;
}

/** Checks a queue, log or channel name: a non-empty string. */
export function checkBusName(kind: string, name: unknown): asserts name is string {
  if (typeof name !== 'string' || name === '')
    throw new TypeError(`MessageBus: the ${kind} name must be a non-empty string, got ${JSON.stringify(name)}.`);
}

/** The message as JSON, refusing what JSON cannot carry (it would arrive changed in another process). */
export function encodeBusMessage(message: unknown): string {
  if (message === undefined)
    throw new TypeError('MessageBus: a message cannot be undefined (messages are JSON values).');
  const json = JSON.stringify(message);
  if (json === undefined) throw new TypeError(`MessageBus: a ${typeof message} is not a JSON value.`);
  return json;
}
