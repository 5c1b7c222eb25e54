import type { RedisClient } from '../redis/redis-client.js';
import { Observable } from 'rxjs';
import type { AgentEvent } from '../../event/events.js';
import { compareStreamIds, RedisChannels, type RedisChannelListener } from '../redis/redis-channels.js';
import { replayGapEvent, type SessionEventBus, type SessionEventsOptions } from './session-event-bus.js';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';

/** Options of {@link RedisSessionEventBus}. */
export interface RedisSessionEventBusOptions {
  /** An ioredis client for commands (yours: `close()` leaves it open). A duplicate of it listens. */
  readonly redis: RedisClient;
  /** Prefix of every key and channel. Default `'rxscope:session:'`. */
  readonly prefix?: string;
  /** Events kept per session for replay (exact trimming). Default 1,000. */
  readonly maxEvents?: number;
  /** A session's log expires this long after its last event. `0` keeps it. Default 24 h. */
  readonly ttlSeconds?: number;
}

// Appends one event: to the stream (trimmed), the reply-in-progress marker, and the live channel,
// atomically, so every listener sees the stream's order and a replay and the live tail line up.
// KEYS: stream, open-reply hash, channel. ARGV: maxlen, json, event id, type, reply id, ttl.
const APPEND = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'i', ARGV[3], 'e', ARGV[2])
local open = redis.call('HGET', KEYS[2], 'reply')
if not open then
  if ARGV[4] == 'REPLY_START' then redis.call('HSET', KEYS[2], 'reply', ARGV[5], 'start', id) end
elseif ARGV[4] == 'REPLY_END' and ARGV[5] == open then
  redis.call('DEL', KEYS[2])
end
local ttl = tonumber(ARGV[6])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], ttl) end
end
redis.call('PUBLISH', KEYS[3], id .. ' ' .. ARGV[2])
return id`;

// The stream id of the entry holding event ARGV[1], searched from the newest (a reconnecting
// client usually missed little); false when the log no longer holds it.
const FIND = `
local upper = '+'
while true do
  local batch = redis.call('XREVRANGE', KEYS[1], upper, '-', 'COUNT', 200)
  for _, entry in ipairs(batch) do
    if entry[2][2] == ARGV[1] then return entry[1] end
  end
  if #batch < 200 then return false end
  upper = '(' .. batch[#batch][1]
end`;

type Entry = [streamId: string, fields: string[]];

// Every option, typed against RedisSessionEventBusOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<RedisSessionEventBusOptions>({
  redis: true,
  prefix: true,
  maxEvents: true,
  ttlSeconds: true,
});

/**
 * A {@link SessionEventBus} on Redis, for several Node processes serving the same sessions: a
 * reply running in one process can be streamed by another. Each session's log is a Redis stream
 * (`<prefix><id>:log`, trimmed to `maxEvents`, expiring `ttlSeconds` after its last event); live
 * events go out on a pub/sub channel (`<prefix><id>:live`) published by the same Lua script
 * that appends them, so replay and live tail join without gaps or duplicates (by stream id).
 * One extra connection per bus listens to every session ({@link RedisChannels}); after it
 * reconnects, each listener fetches what was published meanwhile from the stream. Uses ioredis
 * (an optional peer).
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * const bus = new RedisSessionEventBus({ redis: new Redis('redis://127.0.0.1:6379') });
 * const sessions = new AgentSessions({ agent: makeAgent, bus });
 * ```
 */
export class RedisSessionEventBus implements SessionEventBus {
  private readonly redis: RedisClient;
  private readonly prefix: string;
  private readonly maxEvents: number;
  private readonly ttlSeconds: number;
  private readonly channels: RedisChannels;

  constructor(options: RedisSessionEventBusOptions) {
    checkOptionKeys('RedisSessionEventBus', options, OPTION_KEYS);
    this.redis = options.redis;
    this.prefix = options.prefix ?? 'rxscope:session:';
    this.maxEvents = Math.max(1, options.maxEvents ?? 1000);
    this.ttlSeconds = options.ttlSeconds ?? 24 * 3600;
    this.channels = new RedisChannels(this.redis);
  }

  async append(sessionId: string, event: AgentEvent): Promise<void> {
    const k = this.keys(sessionId);
    await this.redis.eval(
      APPEND,
      3,
      k.log,
      k.open,
      k.live,
      this.maxEvents,
      JSON.stringify(event),
      event.id,
      event.type,
      event.replyId,
      this.ttlSeconds,
    );
  }

  events(sessionId: string, options: SessionEventsOptions = {}): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      const k = this.keys(sessionId);
      let last = '0-0';
      let buffer: [string, string][] | undefined = [];
      const emit = (streamId: string, json: string) => {
        if (compareStreamIds(streamId, last) <= 0) return;
        last = streamId;
        subscriber.next(JSON.parse(json) as AgentEvent);
      };
      const fail = (error: unknown) => subscriber.error(error);
      const listener: RedisChannelListener = {
        // A live message is '<stream id> <event json>' (see APPEND).
        message: (text) => {
          const space = text.indexOf(' ');
          const [streamId, json] = [text.slice(0, space), text.slice(space + 1)];
          if (buffer) buffer.push([streamId, json]);
          else emit(streamId, json);
        },
        reconnected: () => {
          if (buffer) return;
          this.range(k.log, `(${last}`)
            .then((entries) => entries.forEach(([id, fields]) => emit(id, fields[3]!)))
            .catch(fail);
        },
      };
      const unlisten = this.channels.listen(k.live, listener);

      const replay = async () => {
        await unlisten.ready; // listening before reading the log: nothing falls in between
        let head: AgentEvent[] = [];
        let entries: Entry[] = [];
        if (options.lastEventId !== undefined) {
          const at = (await this.redis.eval(FIND, 1, k.log, options.lastEventId)) as string | null;
          if (at) entries = await this.range(k.log, `(${at}`);
          else {
            head = [replayGapEvent(options.lastEventId)];
            entries = await this.range(k.log, '-');
          }
        } else {
          const start = await this.redis.hget(k.open, 'start');
          if (start) entries = await this.range(k.log, start);
        }
        if (subscriber.closed) return;
        for (const event of head) subscriber.next(event);
        for (const [id, fields] of entries) emit(id, fields[3]!);
        const pending = buffer ?? [];
        buffer = undefined;
        for (const [id, json] of pending) emit(id, json);
      };
      replay().catch(fail);
      return () => unlisten.stop();
    });
  }

  async openReply(sessionId: string): Promise<string | undefined> {
    return (await this.redis.hget(this.keys(sessionId).open, 'reply')) ?? undefined;
  }

  async openReplyEvents(sessionId: string): Promise<AgentEvent[]> {
    const k = this.keys(sessionId);
    const start = await this.redis.hget(k.open, 'start');
    if (!start) return [];
    return (await this.range(k.log, start)).map(([, fields]) => JSON.parse(fields[3]!) as AgentEvent);
  }

  async delete(sessionId: string): Promise<void> {
    const k = this.keys(sessionId);
    await this.redis.del(k.log, k.open);
  }

  async close(): Promise<void> {
    await this.channels.close();
  }

  private keys(sessionId: string) {
    const base = `${this.prefix}${sessionId}`;
    return { log: `${base}:log`, open: `${base}:open`, live: `${base}:live` };
  }

  private async range(key: string, start: string): Promise<Entry[]> {
    return this.redis.xrange(key, start, '+');
  }
}
