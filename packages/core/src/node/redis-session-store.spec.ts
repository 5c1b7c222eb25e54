// What is particular to the Redis store, on a real redis-server (the conformance suite every
// store passes is src/__tests__/sessions.spec.ts): writers on separate connections racing for one
// session, a corrupt stored state, expiry, and a confirmation answered through another connection.
import { Redis } from 'ioredis';
import { lastValueFrom, NEVER } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { SessionConflictError, SessionStoreError } from '../state/session-store.js';
import { replyEndOf, runReply, ScriptedChatModel } from '../testing/index.js';
import { startRedisServer, type RedisTestServer } from '../testing/node/index.js';
import { defineTool } from '../tool/tool.js';
import { RedisSessionStore } from './redis-session-store.js';

describe('RedisSessionStore on a real redis-server', () => {
  let server: RedisTestServer;
  const clients: Redis[] = [];
  let prefix: string;
  const client = () => {
    const redis = new Redis(server.url);
    clients.push(redis);
    return redis;
  };
  const state = () => new Agent({ model: new ScriptedChatModel([]), sessionId: 's' }).saveState();

  beforeAll(async () => {
    server = await startRedisServer();
  }, 20_000);
  afterAll(() => server?.stop());
  beforeEach(() => {
    prefix = `t:${Math.random().toString(36).slice(2)}:`;
  });
  afterEach(() => {
    for (const redis of clients.splice(0)) redis.disconnect();
  });

  it('of 20 writers on separate connections saving the same version, exactly one wins', async () => {
    const stores = Array.from({ length: 20 }, () => new RedisSessionStore({ redis: client(), prefix }));
    await stores[0]!.save('race', state(), 0);
    const results = await Promise.allSettled(stores.map((s, i) => s.save('race', { ...state(), summary: `w${i}` }, 1)));
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(SessionConflictError);
    expect(await stores[5]!.load('race')).toMatchObject({ version: 2, state: { summary: `w${won[0]}` } });
  });

  it('reports a corrupt stored state with its key and the bad field, and an agent refuses to reply from it', async () => {
    const redis = client();
    const store = new RedisSessionStore({ redis, prefix });
    await redis.hset(store.keyOf('bad'), 'version', '1', 'state', '{"version": 2, "agentName": 5}');
    await expect(store.load('bad')).rejects.toThrow(SessionStoreError);
    await expect(store.load('bad')).rejects.toThrow(new RegExp(`${prefix}bad: Invalid agent state at "agentName"`));
    await redis.hset(store.keyOf('torn'), 'version', '1', 'state', '{"vers');
    await expect(store.load('torn')).rejects.toThrow(/torn holds a state that is not valid JSON/);
    await redis.hset(store.keyOf('nov'), 'state', '{}');
    await expect(store.load('nov')).rejects.toThrow(/nov has no valid "version"/);
    const agent = new Agent({ model: { modelName: 'm', provider: 'p', stream: () => NEVER }, store, sessionId: 'bad' });
    await expect(lastValueFrom(agent.reply('hi'))).rejects.toThrow(SessionStoreError);
    expect(await redis.hget(store.keyOf('bad'), 'state')).toBe('{"version": 2, "agentName": 5}');
  });

  it('keeps sessions until deleted by default; with ttlSeconds they expire after the last save', async () => {
    const redis = client();
    const keep = new RedisSessionStore({ redis, prefix });
    await keep.save('k', state(), 0);
    expect(await redis.ttl(keep.keyOf('k'))).toBe(-1);
    const expiring = new RedisSessionStore({ redis, prefix: `${prefix}e:`, ttlSeconds: 60 });
    await expiring.save('k', state(), 0);
    const ttl = await redis.ttl(expiring.keyOf('k'));
    expect(ttl).toBeGreaterThan(50);
    expect(ttl).toBeLessThanOrEqual(60);
    await keep.delete('k');
    expect(await redis.exists(keep.keyOf('k'))).toBe(0);
  });

  it('a reply suspended through one connection is confirmed through another and the tool runs once', async () => {
    const runs: string[] = [];
    const refund = defineTool({
      name: 'refund',
      description: 'Refunds an order.',
      input: z.object({ order: z.string() }),
      needsApproval: true,
      execute: ({ order }) => {
        runs.push(order);
        return `refunded ${order}`;
      },
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'r1', name: 'refund', input: { order: 'B-2' } }] },
      { text: 'Refunded.' },
    ]);
    const first = new Agent({
      model,
      tools: [refund],
      sessionId: 'o',
      store: new RedisSessionStore({ redis: client(), prefix }),
    });
    expect(replyEndOf(await runReply(first, 'Refund B-2')).finishReason).toBe('awaiting_confirmation');

    const second = new Agent({
      model,
      tools: [refund],
      sessionId: 'o',
      store: new RedisSessionStore({ redis: client(), prefix }),
    });
    const done = await runReply(second, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: 'r1', confirmed: true }],
    });
    expect(replyEndOf(done).finishReason).toBe('completed');
    expect(runs).toEqual(['B-2']);
  });
});
