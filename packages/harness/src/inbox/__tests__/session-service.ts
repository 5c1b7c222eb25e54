// One process of a service whose sessions wake up: AgentSessions with a Redis event bus, a Redis
// session store, BullMQ schedules and InboxWakeUps on a Redis message bus. The wake-up spec runs
// one in its own process and another as a child process (session-service-main.ts).
import { Redis } from 'ioredis';
import { Agent } from '@rxscope/core';
import { AgentSessions, RedisSessionEventBus, RedisSessionStore } from '@rxscope/core/node';
import { BullMQSessionScheduler } from '@rxscope/core/node/bullmq';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { RedisMessageBus } from '../../redis/index.js';
import { InboxMiddleware } from '../inbox-middleware/index.js';
import { InboxWakeUps } from '../inbox-wake-ups.js';

export interface SessionServiceConfig {
  readonly redisUrl: string;
  /** Prefix of every key, and the schedules' queue name. */
  readonly prefix: string;
  readonly modelUrl: string;
  /** The agents' name: the `source` of their events, telling which process replied. */
  readonly name: string;
}

/** The schedules' queue name (BullMQ refuses ':' in one). */
export const scheduleQueueOf = (prefix: string) => `${prefix.replaceAll(':', '-')}schedules`;

export async function startSessionService(config: SessionServiceConfig) {
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const bullRedis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const bus = new RedisMessageBus({ redis, prefix: `${config.prefix}bus:` });
  const store = new RedisSessionStore({ redis, prefix: `${config.prefix}store:` });
  const events = new RedisSessionEventBus({ redis, prefix: `${config.prefix}events:` });
  const scheduler = new BullMQSessionScheduler({ connection: bullRedis, name: scheduleQueueOf(config.prefix) });
  const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: config.modelUrl });
  const sessions = new AgentSessions({
    agent: (id) =>
      new Agent({ name: config.name, model, sessionId: id, store, middlewares: [new InboxMiddleware({ bus })] }),
    bus: events,
    scheduler,
    wakeUps: (id) => !id.startsWith('quiet'),
  });
  const wakeUps = new InboxWakeUps({ bus, sessions }).start();
  await scheduler.queue.waitUntilReady();
  return {
    sessions,
    bus,
    async close() {
      wakeUps.close();
      await sessions.close();
      await bus.close();
      redis.disconnect();
      bullRedis.disconnect();
    },
  };
}
