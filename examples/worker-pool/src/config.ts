/**
 * What the front and the workers share, from the environment: REDIS_URL (required: the sessions'
 * store, their events, their inboxes and the reply queue all live there), WORK_DIR (the sessions' workspaces; default
 * ./workspaces), MODEL_URL (an OpenAI-compatible endpoint, e.g. the offline model's) or
 * OPENAI_API_KEY (+ OPENAI_MODEL), PREFIX (Redis key prefix; default "worker-pool:"), LOCK_MS and
 * STALLED_MS (BullMQ's lockDuration and stalledInterval; default 30,000 each).
 */
import { RedisSessionEventBus, RedisSessionStore } from '@rxscope/core/node';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { RedisMessageBus } from '@rxscope/harness/redis';
import { Redis } from 'ioredis';

export interface Shared {
  readonly prefix: string;
  /** The BullMQ queue of replies. */
  readonly queueName: string;
  /** A new Redis connection (BullMQ needs `maxRetriesPerRequest: null`). */
  connect(): Redis;
  /** The sessions' state, shared by every process. */
  readonly store: RedisSessionStore;
  /** Reply events: replay logs and live delivery. */
  readonly events: RedisSessionEventBus;
  /** Inboxes. */
  readonly messages: RedisMessageBus;
  readonly workDir: string;
  readonly lockMs: number;
  readonly stalledMs: number;
  model(): OpenAIChatModel;
  /** Closes what this module opened. */
  close(): Promise<void>;
}

export function shared(env: NodeJS.ProcessEnv = process.env): Shared {
  const url = env['REDIS_URL'];
  if (!url) throw new Error('REDIS_URL is not set (e.g. redis://127.0.0.1:6379)');
  const prefix = env['PREFIX'] ?? 'worker-pool:';
  const connections: Redis[] = [];
  const connect = () => {
    const redis = new Redis(url, { maxRetriesPerRequest: null });
    connections.push(redis);
    return redis;
  };
  const events = new RedisSessionEventBus({ redis: connect(), prefix: `${prefix}session:` });
  const messages = new RedisMessageBus({ redis: connect(), prefix: `${prefix}bus:` });
  return {
    prefix,
    queueName: `${prefix.replace(/:$/, '')}-replies`,
    connect,
    store: new RedisSessionStore({ redis: connect(), prefix: `${prefix}store:` }),
    events,
    messages,
    workDir: env['WORK_DIR'] ?? './workspaces',
    lockMs: Number(env['LOCK_MS'] ?? 30_000),
    stalledMs: Number(env['STALLED_MS'] ?? 30_000),
    model: () => {
      if (env['MODEL_URL'])
        return new OpenAIChatModel({ model: 'offline-scripted', apiKey: 'offline', baseURL: env['MODEL_URL'] });
      if (env['OPENAI_API_KEY'])
        return new OpenAIChatModel({ model: env['OPENAI_MODEL'] || 'gpt-4o-mini', apiKey: env['OPENAI_API_KEY'] });
      throw new Error('set MODEL_URL (e.g. the offline model: node dist/offline.js) or OPENAI_API_KEY');
    },
    close: async () => {
      await events.close();
      await messages.close();
      for (const redis of connections) redis.disconnect();
    },
  };
}
