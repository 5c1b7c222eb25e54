// Two node-service instances sharing one Redis (a real redis-server on a free loopback port): a
// reply started through one is streamed, and resumed after a disconnect, through the other.
import { fromAgentEventStream, type AgentEvent } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { RedisSessionEventBus } from '@rxscope/core/node';
import type { OpenAITestServer } from '@rxscope/core/testing/node';
import { Redis } from 'ioredis';
import { filter, firstValueFrom, lastValueFrom, take, takeWhile, toArray } from 'rxjs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { startOfflineModel } from './offline.js';
import { startService, type RunningService } from './service.js';

const untilEnd = takeWhile((e: AgentEvent) => e.type !== 'REPLY_END', true);

/** Debian's redis-server (npm test installs it) on a free loopback port, without persistence. */
async function startRedisServer(): Promise<{ url: string; stop: () => void }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as { port: number };
      probe.close(() => resolve(free));
    });
  });
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (e) => reject(new Error(`redis-server could not start: ${e.message}`))),
  );
  const url = `redis://127.0.0.1:${port}`;
  const ready = (async () => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      const up = await probe.connect().then(
        () => probe.ping().then(() => true),
        () => false,
      );
      probe.disconnect();
      if (up) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not answer on ${url}`);
  })();
  await Promise.race([ready, failed]);
  return { url, stop: () => child.kill('SIGTERM') };
}

describe('node-service on Redis (REDIS_URL)', () => {
  let redisServer: { url: string; stop: () => void };
  let offline: OpenAITestServer;
  const services: RunningService[] = [];
  const clients: Redis[] = [];
  beforeAll(async () => {
    redisServer = await startRedisServer();
    offline = await startOfflineModel();
    for (let i = 0; i < 2; i++) {
      const redis = new Redis(redisServer.url);
      clients.push(redis);
      services.push(
        await startService({
          model: new OpenAIChatModel({ model: 'offline-scripted', apiKey: 'offline', baseURL: offline.url }),
          modelLabel: 'offline',
          port: 0,
          staticDir: __dirname,
          corsOrigins: [],
          bus: new RedisSessionEventBus({ redis, prefix: 'node-service-test:' }),
        }),
      );
    }
  }, 20_000);
  afterAll(async () => {
    for (const service of services) await service.close();
    for (const redis of clients) redis.disconnect();
    await offline?.close();
    redisServer?.stop();
  });

  it('streams through instance B a reply started through instance A, and resumes it there after a disconnect', async () => {
    const [a, b] = services as [RunningService, RunningService];
    const stream = (lastEventId?: string) =>
      fromAgentEventStream(`${b.url}/api/sessions/shared-1/events`, lastEventId ? { lastEventId } : {});
    const witness = lastValueFrom(b.sessions.events('shared-1').pipe(untilEnd, toArray()));
    const firstPart = firstValueFrom(
      stream().pipe(
        filter((e) => e.type === 'TEXT_BLOCK_DELTA'),
        take(3),
        toArray(),
      ),
    );
    await new Promise((r) => setTimeout(r, 150));
    const res = await fetch(`${a.url}/api/sessions/shared-1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Hello from instance A, streamed by instance B' }),
    });
    expect(res.status).toBe(202);
    const seen = await firstPart;
    const all = await witness;
    const rest = await firstValueFrom(stream(seen[2]!.id).pipe(untilEnd, toArray()));
    expect(rest).toEqual(all.slice(all.findIndex((e) => e.id === seen[2]!.id) + 1));
    expect(all.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(a.sessions.running('shared-1')).toBe(false);
  });
});
