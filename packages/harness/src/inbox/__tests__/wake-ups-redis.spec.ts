// Wake-ups and schedules across two processes on a real redis-server: this test process and a
// child process each run a session service (AgentSessions, Redis event bus and store, BullMQ
// schedules, InboxWakeUps on a Redis message bus). A message pushed to an idle session's inbox
// wakes it once, in one of the two; a schedule made in one is listed from a fresh connection,
// ticks into replies run by either, one reply at a time, and stops when cancelled.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import type { Subscription } from 'rxjs';
import type { AgentEvent } from '@rxscope/core';
import { RedisSessionEventBus } from '@rxscope/core/node';
import { BullMQSessionScheduler } from '@rxscope/core/node/bullmq';
import {
  startOpenAITestServer,
  startRedisServer,
  type OpenAITestServer,
  type RedisTestServer,
} from '@rxscope/core/testing/node';
import { RedisMessageBus } from '../../redis/index.js';
import { pushToInbox } from '../inbox-message.js';
import { scheduleQueueOf, startSessionService } from './session-service.js';

const TSX_LOADER = pathToFileURL(
  require.resolve('tsx/esm', { paths: [dirname(require.resolve('@rxscope/core/package.json'))] }),
).href;

const until = async (check: () => boolean, what: string, ms = 10_000) => {
  for (const end = Date.now() + ms; !check();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('wake-ups and schedules across two processes on Redis', () => {
  jest.setTimeout(60_000);
  let redisServer: RedisTestServer;
  let model: OpenAITestServer;
  let child: ChildProcess;
  let service: Awaited<ReturnType<typeof startSessionService>>;
  let redis: Redis;
  let events: RedisSessionEventBus;
  let prefix: string;
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    redisServer = await startRedisServer();
    model = await startOpenAITestServer({
      handler: (req, i) =>
        JSON.stringify(req.body.messages).includes('Take your time') && req.body.messages!.length === 1
          ? { text: ['slow ', 'answer ', 'in ', 'many ', 'parts'], chunkDelayMs: 200 }
          : { text: `answer ${i}` },
    });
    prefix = `wake-${Math.random().toString(36).slice(2)}:`;
    child = spawn(process.execPath, ['--import', TSX_LOADER, join(__dirname, 'session-service-main.ts')], {
      env: {
        ...process.env,
        REDIS_URL: redisServer.url,
        SERVICE_PREFIX: prefix,
        MODEL_URL: model.url,
        SERVICE_NAME: 'process-b',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    let exited = false;
    child.once('exit', () => (exited = true));
    await until(() => out.includes('ready') || exited, 'the child process to be ready', 30_000);
    if (exited) throw new Error('the child process ended before it was ready (its stderr is above)');
    service = await startSessionService({ redisUrl: redisServer.url, prefix, modelUrl: model.url, name: 'process-a' });
    redis = new Redis(redisServer.url);
    events = new RedisSessionEventBus({ redis, prefix: `${prefix}events:` });
  }, 60_000);
  afterAll(async () => {
    for (const s of subscriptions) s.unsubscribe();
    await events?.close();
    redis?.disconnect();
    await service?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await model?.close();
    await redisServer?.stop();
  });

  /** Every event of a session from now on, as the bus delivers it to any listener. */
  function watch(sessionId: string): AgentEvent[] {
    const seen: AgentEvent[] = [];
    subscriptions.push(events.events(sessionId).subscribe((e) => seen.push(e)));
    return seen;
  }
  const starts = (seen: AgentEvent[]) => seen.filter((e) => e.type === 'REPLY_START');
  const ends = (seen: AgentEvent[]) => seen.filter((e) => e.type === 'REPLY_END');
  const requestsWith = (text: string) =>
    model.requests.filter((r) => JSON.stringify(r.body.messages).includes(text)).length;

  it('a message pushed to an idle session wakes it once, in one of the two processes, and the reply reads it', async () => {
    // A third client pushes (a front process, a webhook): it runs no sessions.
    const pusherRedis = new Redis(redisServer.url);
    const pusher = new RedisMessageBus({ redis: pusherRedis, prefix: `${prefix}bus:` });
    const sources = new Set<string>();
    for (const n of [1, 2, 3, 4]) {
      const sessionId = `inbox-${n}`;
      const seen = watch(sessionId);
      await new Promise((r) => setTimeout(r, 50)); // the listener is in place
      await pushToInbox(pusher, sessionId, { text: `Deploy ${n} finished.`, from: 'ci' });
      await until(() => ends(seen).length === 1, `the woken reply of ${sessionId}`);
      await new Promise((r) => setTimeout(r, 300)); // a second reply, if any, would start by now
      expect(starts(seen)).toHaveLength(1);
      expect(ends(seen)[0]).toMatchObject({ finishReason: 'completed' });
      expect(requestsWith(`Deploy ${n} finished.`)).toBe(1);
      sources.add(starts(seen)[0]!.source);
    }
    expect([...sources].every((s) => s === 'process-a' || s === 'process-b')).toBe(true);
    await pusher.close();
    pusherRedis.disconnect();
  });

  it('a message for a session whose reply runs (in either process) joins that reply: no second reply starts', async () => {
    const seen = watch('busy');
    await new Promise((r) => setTimeout(r, 50));
    await service.sessions.start('busy', 'Take your time');
    await until(() => starts(seen).length === 1, 'the slow reply to start');
    await pushToInbox(service.bus, 'busy', 'One more thing.');
    await until(() => ends(seen).length === 1, 'the slow reply to end');
    await new Promise((r) => setTimeout(r, 500));
    expect(starts(seen)).toHaveLength(1);
    expect(requestsWith('One more thing.')).toBe(1); // read by the running reply, in one more step
  });

  it('a session that opted out is not woken', async () => {
    const seen = watch('quiet-1');
    await pushToInbox(service.bus, 'quiet-1', 'For later.');
    await new Promise((r) => setTimeout(r, 800));
    expect(seen).toEqual([]);
    expect(requestsWith('For later.')).toBe(0);
  });

  it('a schedule made in one process is in Redis, ticks into replies run one at a time, and stops when cancelled', async () => {
    const seen = watch('ops');
    const schedule = await service.sessions.schedule('ops', { every: 700, message: 'Check the queue depth.' });
    // Listed from another connection (what every process of the service sees).
    const readerRedis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
    const reader = new BullMQSessionScheduler({ connection: readerRedis, name: scheduleQueueOf(prefix) });
    expect(await reader.list('ops')).toEqual([schedule]);
    await expect(service.sessions.schedule('ops', { cron: '0 25 * * *', message: 'x' })).rejects.toMatchObject({
      code: 'invalid_schedule',
    });

    await until(() => ends(seen).length >= 3, 'three scheduled replies', 20_000);
    expect(await service.sessions.cancelSchedule(schedule.id)).toBe(true);
    expect(await reader.list()).toEqual([]);
    await until(() => starts(seen).length === ends(seen).length, 'the last scheduled reply to end');
    const count = starts(seen).length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(starts(seen)).toHaveLength(count);

    // One reply at a time: every REPLY_START follows the previous reply's REPLY_END.
    const order = seen.filter((e) => e.type === 'REPLY_START' || e.type === 'REPLY_END').map((e) => e.type);
    expect(order).toEqual(Array.from({ length: count }, () => ['REPLY_START', 'REPLY_END']).flat());
    expect(requestsWith('Check the queue depth.')).toBeGreaterThanOrEqual(3);
    await reader.close();
    readerRedis.disconnect();
  });
});
