// The sandbox lease on a real redis-server, each RedisSandboxLease on its own connection standing
// for one process: one driver per session, a clear error or a wait for the second, expiry when a
// holder dies, and a reply stopped when it loses its lease.
import { Redis } from 'ioredis';
import { lastValueFrom, toArray } from 'rxjs';
import { replyEndOf, ScriptedChatModel } from '@rxscope/core/testing';
import { startRedisServer, type RedisTestServer } from '@rxscope/core/testing/node';
import { tempDir } from '../__tests__/helpers.js';
import { createHarnessAgent } from '../assembly/create-harness-agent.js';
import { SandboxBusyError } from '../sandbox/sandbox-lease.js';
import { RedisSandboxLease, type RedisSandboxLeaseOptions } from './index.js';

describe('RedisSandboxLease on a real redis-server', () => {
  let server: RedisTestServer;
  let dir: ReturnType<typeof tempDir>;
  let prefix: string;
  const clients: Redis[] = [];
  /** A lease on a connection of its own: one per simulated process. */
  const process_ = (options: Omit<RedisSandboxLeaseOptions, 'redis'> = {}) => {
    const redis = new Redis(server.url);
    clients.push(redis);
    return new RedisSandboxLease({ redis, prefix, ...options });
  };
  const sleepingAgent = (lease: RedisSandboxLease, command: string) =>
    createHarnessAgent({
      model: new ScriptedChatModel([
        { toolCalls: [{ id: 'c1', name: 'execute', input: { command } }] },
        { text: 'done' },
      ]),
      workspace: dir.path,
      sandbox: 'local',
      execute: { askPermission: false },
      sessionId: 'shared',
      sandboxLease: lease,
    });

  beforeAll(async () => {
    server = await startRedisServer();
  }, 20_000);
  afterAll(() => server?.stop());
  beforeEach(() => {
    dir = tempDir();
    prefix = `t:${Math.random().toString(36).slice(2)}:`;
  });
  afterEach(() => {
    for (const redis of clients.splice(0)) redis.disconnect();
    dir.cleanup();
  });

  it('a second process gets a SandboxBusyError naming the holder; after release it gets the lease', async () => {
    const a = process_();
    const b = process_();
    const held = await a.acquire('s1');
    const refused = b.acquire('s1');
    await expect(refused).rejects.toBeInstanceOf(SandboxBusyError);
    await expect(refused).rejects.toMatchObject({ code: 'sandbox_busy', sessionId: 's1', holder: held.owner });
    await expect(refused).rejects.toThrow(/in use by another process .*Retry when its reply has ended/);
    expect(await b.acquire('other')).toMatchObject({ sessionId: 'other' }); // other sessions are free
    await held.release();
    const next = await b.acquire('s1');
    expect(next.owner).not.toBe(held.owner);
    await next.release();
  });

  it('with waitMs the second process waits for the release; a holder that dies frees the session after ttlMs', async () => {
    const a = process_();
    const b = process_({ waitMs: 5_000, retryEveryMs: 20 });
    const held = await a.acquire('s1');
    const waiting = b.acquire('s1');
    setTimeout(() => void held.release(), 150);
    const t0 = Date.now();
    const got = await waiting;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    await got.release();

    // A "dead" holder: a key nobody renews.
    const short = process_({ ttlMs: 300 });
    await clients[0]!.set(short.keyOf('s2'), 'dead-host:1:x', 'PX', 300);
    await expect(short.acquire('s2')).rejects.toMatchObject({ holder: 'dead-host:1:x' });
    await new Promise((r) => setTimeout(r, 400));
    await (await short.acquire('s2')).release();
  });

  it('a live holder keeps its lease past ttlMs by renewing it', async () => {
    const a = process_({ ttlMs: 200, renewEveryMs: 50 });
    const held = await a.acquire('s1');
    await new Promise((r) => setTimeout(r, 500));
    await expect(process_().acquire('s1')).rejects.toBeInstanceOf(SandboxBusyError);
    await held.release();
    expect(await clients[0]!.exists(a.keyOf('s1'))).toBe(0);
  });

  it('two agents of one session in two processes: the second reply ends with sandbox_busy before anything runs while the first drives the sandbox', async () => {
    const first = sleepingAgent(process_(), 'sleep 0.6; echo first');
    const running = lastValueFrom(first.reply('go').pipe(toArray()));
    await new Promise((r) => setTimeout(r, 200));
    const second = sleepingAgent(process_(), 'echo second');
    const refused = await lastValueFrom(second.reply('go too').pipe(toArray()));
    expect(replyEndOf(refused)).toMatchObject({
      finishReason: 'error',
      error: { name: 'SandboxBusyError', code: 'sandbox_busy' },
    });
    expect(refused.map((e) => e.type)).not.toContain('TOOL_CALL_START'); // nothing of it ran
    expect(replyEndOf(await running).finishReason).toBe('completed');
    // The lease is given up after the first reply's sandbox is released.
    await new Promise((r) => setTimeout(r, 100));
    const events = await lastValueFrom(second.reply('go now').pipe(toArray()));
    expect(replyEndOf(events).finishReason).toBe('completed');
  });

  it('a reply that loses its lease is stopped with sandbox_lease_lost', async () => {
    const lease = process_({ ttlMs: 300, renewEveryMs: 50 });
    const agent = sleepingAgent(lease, 'sleep 2');
    const running = lastValueFrom(agent.reply('go').pipe(toArray()));
    await new Promise((r) => setTimeout(r, 200));
    await clients[0]!.set(lease.keyOf('shared'), 'intruder:1:x', 'PX', 5_000); // another process took it over
    const end = replyEndOf(await running);
    expect(end).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'sandbox_lease_lost' } });
    expect(end.stopReason!.message).toMatch(/lease of session "shared" was lost.*now held by intruder:1:x/);
    expect(await clients[0]!.get(lease.keyOf('shared'))).toBe('intruder:1:x'); // not released by the loser
  });
});
