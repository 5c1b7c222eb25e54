import type { RedisClient, RedisSubscriberClient } from './redis-client.js';

/** Receives the messages of one Redis pub/sub channel (see {@link RedisChannels.listen}). */
export interface RedisChannelListener {
  /** One message published on the channel. */
  message(text: string): void;
  /**
   * The listening connection came back after it was lost: whatever was published meanwhile is
   * gone from pub/sub, so fetch it from where it is kept (a stream), if anywhere.
   */
  reconnected?(): void;
}

/** What {@link RedisChannels.listen} returns. */
export interface RedisChannelSubscription {
  /** Resolves once the channel is subscribed: messages published from then on arrive. */
  readonly ready: Promise<unknown>;
  /** Stops this listener (the channel is unsubscribed when it was the last). */
  stop(): void;
}

/**
 * Listens to Redis pub/sub channels for many listeners over ONE extra connection (a duplicate
 * of the command client, opened on first use): each channel is subscribed once however many
 * listeners it has, and unsubscribed when the last one stops. After the listening connection
 * reconnects (ioredis subscribes again by itself), every listener's `reconnected` is called so
 * it can fetch what it missed. The Redis parts of rxscope (`RedisSessionEventBus`, the harness's
 * `RedisMessageBus`) share this instead of each keeping a pub/sub layer of its own.
 *
 * @example
 * ```ts
 * const channels = new RedisChannels(new Redis(url));
 * const sub = channels.listen('news', { message: (text) => console.log(text) });
 * await sub.ready;                      // subscribed: what is published now arrives
 * await redis.publish('news', 'hello'); // → 'hello'
 * sub.stop();
 * await channels.close();
 * ```
 */
export class RedisChannels {
  private subscriber: RedisSubscriberClient | undefined;
  private readonly channels = new Map<string, { listeners: Set<RedisChannelListener>; ready: Promise<unknown> }>();
  private connectedOnce = false;

  /** `redis`: the command client (yours: `close()` leaves it open); a duplicate of it listens. */
  constructor(private readonly redis: RedisClient) {}

  /** Adds a listener to `channel`, subscribing the channel if it is the first. */
  listen(channel: string, listener: RedisChannelListener): RedisChannelSubscription {
    const subscriber = this.connect();
    let entry = this.channels.get(channel);
    if (!entry) {
      entry = { listeners: new Set(), ready: subscriber.subscribe(channel) };
      this.channels.set(channel, entry);
    }
    entry.listeners.add(listener);
    const current = entry;
    return {
      ready: current.ready,
      stop: () => {
        current.listeners.delete(listener);
        if (current.listeners.size === 0 && this.channels.get(channel) === current) {
          this.channels.delete(channel);
          if (this.subscriber) void this.subscriber.unsubscribe(channel).catch(() => undefined);
        }
      },
    };
  }

  /** Closes the listening connection; listeners receive nothing more. */
  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.channels.clear();
    this.connectedOnce = false;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private connect(): RedisSubscriberClient {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.redis.duplicate();
    subscriber.on('message', (channel: string, message: string) => {
      for (const listener of [...(this.channels.get(channel)?.listeners ?? [])]) listener.message(message);
    });
    subscriber.on('ready', () => {
      if (this.connectedOnce)
        for (const entry of this.channels.values())
          for (const listener of [...entry.listeners]) listener.reconnected?.();
      this.connectedOnce = true;
    });
    subscriber.on('error', () => undefined); // reconnection is ioredis' job; commands report their own errors
    this.subscriber = subscriber;
    return subscriber;
  }
}

/**
 * Orders Redis stream ids (`<ms>-<seq>`): negative, zero or positive like a comparator.
 *
 * @example
 * ```ts
 * compareStreamIds('1700000000000-2', '1700000000000-10'); // < 0
 * ```
 */
export function compareStreamIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}
