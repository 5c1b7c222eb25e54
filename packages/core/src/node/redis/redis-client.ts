/**
 * The commands rxscope's Redis parts send, as an ioredis client (`new Redis(url)`) provides them.
 * Declared here rather than imported from `ioredis`, so the declarations of `@rxscope/core/node`
 * do not name an optional peer dependency: a project that uses the entry's other parts (the file
 * store, the SSE helpers) without ioredis compiles with `skipLibCheck: false`. Any ioredis
 * `Redis` is one.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * const client: RedisClient = new Redis(process.env.REDIS_URL!);
 * const store = new RedisSessionStore({ redis: client });
 * ```
 */
export interface RedisClient {
  /** ioredis's connection state (`'ready'` when connected); tells a save never sent from one whose answer was lost. */
  readonly status?: string;
  /** `HGET`: one field of a hash. */
  hget(key: string, field: string): Promise<string | null>;
  /** `HMGET`: several fields of a hash. */
  hmget(key: string, ...fields: string[]): Promise<(string | null)[]>;
  /** `DEL`: removes keys. */
  del(...keys: string[]): Promise<number>;
  /** `EVAL`: runs a Lua script atomically (the compare-and-set saves, the event log appends). */
  eval(script: string, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  /** `XRANGE`: entries of a stream (a session's event log). */
  xrange(key: string, start: string, end: string): Promise<[id: string, fields: string[]][]>;
  /** A new connection with the same options: the one that listens to pub/sub channels. */
  duplicate(): RedisSubscriberClient;
}

/**
 * The connection {@link RedisChannels} listens on (a duplicate of a {@link RedisClient}).
 *
 * @example
 * ```ts
 * const subscriber: RedisSubscriberClient = new Redis(url).duplicate();
 * ```
 */
export interface RedisSubscriberClient {
  /** `SUBSCRIBE`: starts receiving channels' messages. */
  subscribe(...channels: string[]): Promise<unknown>;
  /** `UNSUBSCRIBE`: stops receiving channels' messages. */
  unsubscribe(...channels: string[]): Promise<unknown>;
  /** A channel's message; `ready` after each (re)connection; `error` (reconnecting is the client's job). */
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'ready' | 'error', listener: (...args: unknown[]) => void): unknown;
  /** Closes the connection after pending replies. */
  quit(): Promise<unknown>;
  /** Closes the connection at once (when `quit` fails). */
  disconnect(): void;
}
