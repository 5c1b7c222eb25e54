import { RedisChannels } from '@rxscope/core/node';
import type { Redis } from 'ioredis';
import { Observable, type Subscriber } from 'rxjs';
import {
  checkBusName,
  checkMax,
  checkQueueId,
  encodeBusMessage,
  type LogEntry,
  type LogPage,
  type LogReadOptions,
  type MessageBus,
} from '../bus/message-bus.js';
import { optionKeys } from '@rxscope/core';
import { HarnessOptionError, refuseUnknownOptions } from '../options/index.js';

/** Options of {@link RedisMessageBus}. */
export interface RedisMessageBusOptions {
  /** An ioredis client for commands (yours: `close()` leaves it open). A duplicate of it listens. */
  readonly redis: Redis;
  /** Prefix of every key and channel. Default `'rxscope:bus:'`. */
  readonly prefix?: string;
  /** Entries kept per replay log (exact trimming). Default 1,000. */
  readonly maxLogEntries?: number;
  /** A queue or log expires this long after its last write. `0` keeps it. Default 7 days. */
  readonly ttlSeconds?: number;
}

// Push: add to the queue's stream and wake the drainers, in one step.
// KEYS: stream, channel. ARGV: json, ttl.
const PUSH = `
redis.call('XADD', KEYS[1], '*', 'm', ARGV[1])
local ttl = tonumber(ARGV[2])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
redis.call('PUBLISH', KEYS[2], '')
return 1`;

// Drain: take the oldest entries and delete them in one step, so no two drains get one entry.
// KEYS: stream. ARGV: max (0: all).
const DRAIN = `
local entries
if tonumber(ARGV[1]) > 0 then entries = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', ARGV[1])
else entries = redis.call('XRANGE', KEYS[1], '-', '+') end
local out = {}
for i, entry in ipairs(entries) do
  redis.call('XDEL', KEYS[1], entry[1])
  out[i] = entry[2][2]
end
return out`;

// Ack: delete the entries up to and including an id. KEYS: stream. ARGV: id.
const ACK = `
local entries = redis.call('XRANGE', KEYS[1], '-', ARGV[1])
for _, entry in ipairs(entries) do redis.call('XDEL', KEYS[1], entry[1]) end
return #entries`;

// Append to a log, trimmed exactly. KEYS: stream. ARGV: json, maxlen, ttl.
const APPEND = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], '*', 'm', ARGV[1])
local ttl = tonumber(ARGV[3])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return id`;

const STREAM_ID = /^\d+-\d+$/;

// Every option, typed against RedisMessageBusOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<RedisMessageBusOptions>({
  redis: true,
  prefix: true,
  maxLogEntries: true,
  ttlSeconds: true,
});

/**
 * A {@link MessageBus} on Redis, for several processes: a queue is a Redis stream whose entries
 * a Lua script reads and deletes in one step (each drained once, across processes), with a
 * pub/sub channel that wakes `pushed` listeners; a replay log is a stream trimmed to
 * `maxLogEntries` and read by stream id; broadcast is pub/sub. Listening shares one connection
 * per bus (`RedisChannels` of `@rxscope/core/node`, as `RedisSessionEventBus` does). Uses
 * ioredis (an optional peer).
 *
 * Keys: `<prefix>q:<queue>` (stream) and channel `<prefix>q:<queue>:pushed`;
 * `<prefix>log:<log>` (stream); channel `<prefix>ch:<channel>`.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { RedisMessageBus } from '@rxscope/harness/redis';
 * const bus = new RedisMessageBus({ redis: new Redis(process.env.REDIS_URL!) });
 * const agent = createHarnessAgent({ model, workspace: './ws', sessionId: 's1', bus });
 * // in another process, on the same Redis:
 * await bus.push('inbox:s1', { text: 'Stop after the first file.' });
 * ```
 */
export class RedisMessageBus implements MessageBus {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly maxLogEntries: number;
  private readonly ttlSeconds: number;
  private readonly channels: RedisChannels;
  /** Ends the open `pushed` and `subscribe` streams at `close()`. */
  private readonly listening = new Set<() => void>();

  constructor(options: RedisMessageBusOptions) {
    refuseUnknownOptions('RedisMessageBus', options, OPTION_KEYS);
    if (!options?.redis || typeof options.redis.duplicate !== 'function') {
      throw new HarnessOptionError(
        'invalid_option',
        'RedisMessageBus.redis',
        'RedisMessageBus needs an ioredis client (options.redis: new Redis(url)).',
      );
    }
    this.redis = options.redis;
    this.prefix = options.prefix ?? 'rxscope:bus:';
    this.maxLogEntries = Math.max(1, options.maxLogEntries ?? 1000);
    this.ttlSeconds = options.ttlSeconds ?? 7 * 24 * 3600;
    this.channels = new RedisChannels(this.redis);
  }

  async push<T>(queue: string, message: T): Promise<void> {
    checkBusName('queue', queue);
    const key = this.queueKey(queue);
    await this.redis.eval(PUSH, 2, key, `${key}:pushed`, encodeBusMessage(message), this.ttlSeconds);
  }

  async drain<T>(queue: string, options: { readonly max?: number } = {}): Promise<T[]> {
    checkBusName('queue', queue);
    const max = checkMax('drain', options.max);
    const taken = (await this.redis.eval(DRAIN, 1, this.queueKey(queue), max)) as string[];
    return taken.map((json) => JSON.parse(json) as T);
  }

  async peek<T>(
    queue: string,
    options: { readonly after?: string; readonly max?: number } = {},
  ): Promise<LogEntry<T>[]> {
    checkBusName('queue', queue);
    const max = checkMax('peek', options.max);
    if (options.after !== undefined) checkQueueId('peek', options.after);
    const start = options.after === undefined ? '-' : `(${options.after}`;
    const key = this.queueKey(queue);
    const raw = max ? await this.redis.xrange(key, start, '+', 'COUNT', max) : await this.redis.xrange(key, start, '+');
    return raw.map(([id, fields]) => ({ id, message: JSON.parse(fields[1]!) as T }));
  }

  async ack(queue: string, upTo: string): Promise<void> {
    checkBusName('queue', queue);
    checkQueueId('ack', upTo);
    await this.redis.eval(ACK, 1, this.queueKey(queue), upTo);
  }

  pushed(queue: string): Observable<void> {
    checkBusName('queue', queue);
    return new Observable<void>((subscriber) => {
      const wake = () => subscriber.next();
      const subscription = this.channels.listen(`${this.queueKey(queue)}:pushed`, { message: wake, reconnected: wake });
      subscription.ready.then(
        () => !subscriber.closed && wake(), // whatever was pushed before the listener was in place
        (e: unknown) => subscriber.error(e),
      );
      return this.track(subscriber, subscription);
    });
  }

  async append<T>(log: string, message: T): Promise<string> {
    checkBusName('log', log);
    return (await this.redis.eval(
      APPEND,
      1,
      this.logKey(log),
      encodeBusMessage(message),
      this.maxLogEntries,
      this.ttlSeconds,
    )) as string;
  }

  async read<T>(log: string, options: LogReadOptions = {}): Promise<LogPage<T>> {
    checkBusName('log', log);
    if (options.after !== undefined && !STREAM_ID.test(options.after)) {
      throw new TypeError(`MessageBus.read: "${options.after}" is not a cursor of this bus (an id read from it).`);
    }
    const limit = options.limit ?? 100;
    const start = options.after === undefined ? '-' : `(${options.after}`;
    const raw = await this.redis.xrange(this.logKey(log), start, '+', 'COUNT', limit);
    const entries = raw.map(([id, fields]) => ({ id, message: JSON.parse(fields[1]!) as T }));
    return { entries, cursor: entries.at(-1)?.id ?? options.after ?? '0-0' };
  }

  async publish<T>(channel: string, message: T): Promise<void> {
    checkBusName('channel', channel);
    await this.redis.publish(this.channelKey(channel), encodeBusMessage(message));
  }

  subscribe<T>(channel: string): Observable<T> {
    checkBusName('channel', channel);
    return new Observable<T>((subscriber) => {
      const subscription = this.channels.listen(this.channelKey(channel), {
        message: (json) => subscriber.next(JSON.parse(json) as T),
      });
      subscription.ready.catch((e: unknown) => subscriber.error(e));
      return this.track(subscriber, subscription);
    });
  }

  async delete(name: string): Promise<void> {
    await this.redis.del(this.queueKey(name), this.logKey(name));
  }

  async close(): Promise<void> {
    for (const end of [...this.listening]) end();
    await this.channels.close();
  }

  private track(subscriber: Subscriber<unknown>, subscription: { stop(): void }): () => void {
    const end = () => subscriber.complete();
    this.listening.add(end);
    return () => {
      this.listening.delete(end);
      subscription.stop();
    };
  }

  private queueKey(queue: string): string {
    return `${this.prefix}q:${queue}`;
  }

  private logKey(log: string): string {
    return `${this.prefix}log:${log}`;
  }

  private channelKey(channel: string): string {
    return `${this.prefix}ch:${channel}`;
  }
}
