// Per-user cost limits shared by real processes through a real redis-server: each reply runs
// in its own Node process (a restart each time), and the totals live only in Redis.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { AgentEvent } from '@rxscope/core';
import { type RedisTestServer, startRedisServer } from '@rxscope/core/testing/node';
import { RedisCostStore } from './redis-cost-store.js';

const WORKER = join(__dirname, '__tests__', 'fixtures', 'cost-worker.ts');
const TSX = require.resolve('tsx/cli');

function runWorker(env: Record<string, string>): Promise<AgentEvent[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, WORKER], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(
            out
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as AgentEvent),
          )
        : reject(new Error(`worker exited ${code}: ${err}`)),
    );
  });
}

const endOf = (events: readonly AgentEvent[]) =>
  events.find((e) => e.type === 'REPLY_END') as AgentEvent & { finishReason: string; stopReason?: { code: string } };
const modelCalls = (events: readonly AgentEvent[]) => events.filter((e) => e.type === 'MODEL_CALL_START').length;

describe('RedisCostStore', () => {
  jest.setTimeout(60_000);
  let server: RedisTestServer;
  let redis: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  it('enforces a per-user daily limit across processes, and resets it when the day ends', async () => {
    const day1 = Date.UTC(2026, 11, 7, 22, 0);
    const env = { REDIS_URL: server.url, WORKER_USER: 'ada', WORKER_NOW: String(day1) };
    // Three processes spend 0.1 each; the fourth finds 0.3 >= 0.25 and makes no model call.
    for (let i = 0; i < 3; i++) expect(endOf(await runWorker(env)).finishReason).toBe('completed');
    const refused = await runWorker(env);
    expect(modelCalls(refused)).toBe(0);
    expect(endOf(refused)).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'cost_limit' } });
    expect(Number(await redis.get('test:cost:ada:2026-12-07'))).toBeCloseTo(0.3);
    // The key expires when the UTC day ends (2 h after this clock).
    // (set by the last addition, a few seconds of real time ago)
    const ttl = await redis.pttl('test:cost:ada:2026-12-07');
    expect(ttl).toBeLessThanOrEqual(2 * 3_600_000);
    expect(ttl).toBeGreaterThan(2 * 3_600_000 - 60_000);

    // Another user is not affected; the next day starts at 0.
    expect(endOf(await runWorker({ ...env, WORKER_USER: 'bob' })).finishReason).toBe('completed');
    const next = await runWorker({ ...env, WORKER_NOW: String(Date.UTC(2026, 11, 8, 0, 5)) });
    expect(endOf(next).finishReason).toBe('completed');
    expect(modelCalls(next)).toBe(1);
  });

  it('adds atomically under concurrent writers', async () => {
    const stores = [0, 1, 2, 3].map(() => new RedisCostStore({ redis: new Redis(server.url), prefix: 'atomic:' }));
    await Promise.all(stores.flatMap((s) => Array.from({ length: 25 }, () => s.add('k', 0.01, 60_000))));
    expect(await stores[0]!.get('k')).toBeCloseTo(1);
    for (const s of stores) (s as unknown as { redis: Redis }).redis.disconnect();
  });

  it('refuses a missing client', () => {
    expect(() => new RedisCostStore({} as never)).toThrow(expect.objectContaining({ code: 'invalid_option' }) as Error);
  });
});
