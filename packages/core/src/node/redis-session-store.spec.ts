// What is particular to the Redis store, on a real redis-server (the conformance suite every
// store passes is src/__tests__/sessions.spec.ts): writers on separate connections racing for one
// session, a corrupt stored state, expiry, a confirmation answered through another connection,
// and saves when the redis-server dies (killed with SIGKILL).
import { Redis } from 'ioredis';
import { lastValueFrom, NEVER } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { SessionConflictError, SessionStoreError } from '../state/session-store.js';
import { replyEndOf, runReply, ScriptedChatModel } from '../testing/index.js';
import { startRedisServer, type RedisTestServer } from '../testing/node/index.js';
import { defineTool } from '../tool/tool.js';
import { RedisSessionStore } from './redis-session-store.js';
import { SessionSaveError } from './session-save-error.js';

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

describe('RedisSessionStore when the redis-server dies', () => {
  let server: RedisTestServer;
  let redis: Redis;
  let store: RedisSessionStore;
  const state = (summary: string) => ({
    ...new Agent({ model: new ScriptedChatModel([]), sessionId: 's' }).saveState(),
    summary,
  });
  let serverPid: number;
  /** Kills the server as a crash would (SIGKILL); resolves once it has exited. */
  const killServer = async () => {
    try {
      process.kill(serverPid, 'SIGKILL');
    } catch {
      // exited already
    }
    await server.stop();
  };

  beforeEach(async () => {
    server = await startRedisServer();
    // ioredis retries a command through 20 reconnections by default (about 10 s); 1 keeps the test
    // short. disconnectTimeout: its timer to destroy a dead socket on disconnect (2 s) outlives the test.
    redis = new Redis(server.url, { maxRetriesPerRequest: 1, disconnectTimeout: 50 });
    redis.on('error', () => undefined); // the reconnection errors: the commands' rejections are what is tested
    store = new RedisSessionStore({ redis, prefix: 'dies:' });
    await store.save('user-42', state('kept'), 0);
    serverPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))![1]);
  }, 20_000);
  afterEach(async () => {
    redis.disconnect();
    await killServer(); // SIGKILL: a server busy in a script would not stop on SIGTERM
  });

  it('a save after Redis died is refused as NOT saved, naming the session; a load names it too', async () => {
    await killServer();
    const started = Date.now();
    while (redis.status === 'ready' && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 10));
    expect(redis.status).not.toBe('ready');

    const saving = store.save('user-42', state('lost'), 1);
    await expect(saving).rejects.toBeInstanceOf(SessionSaveError);
    await expect(saving).rejects.toMatchObject({ code: 'session_not_saved', sessionId: 'user-42', maybeSaved: false });
    await expect(saving).rejects.toThrow(
      /^Session "user-42" was NOT saved: Redis could not be reached, and the write to dies:user-42 was never sent \(Reached the max retries/,
    );
    const loading = store.load('user-42');
    await expect(loading).rejects.toBeInstanceOf(SessionStoreError);
    await expect(loading).rejects.toThrow(/^Session "user-42" could not be read from Redis key dies:user-42/);
  });

  it('a save sent just before Redis died is reported as maybe saved, naming the session', async () => {
    // Another client keeps the server busy in a script, so the save is sent and waits for its answer.
    const busy = new Redis(server.url, { maxRetriesPerRequest: 1, disconnectTimeout: 50 });
    busy.on('error', () => undefined);
    const blocking = busy.eval('while true do end', 0).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    const saving = store.save('user-42', state('in flight'), 1);
    saving.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    await killServer();

    await expect(saving).rejects.toMatchObject({
      name: 'SessionSaveError',
      code: 'session_save_unknown',
      sessionId: 'user-42',
      maybeSaved: true,
    });
    await expect(saving).rejects.toThrow(
      /^Session "user-42" may or may not have been saved: the connection to Redis failed after the write to dies:user-42 was sent, .* Load the session to find out\.$/,
    );
    await blocking;
    busy.disconnect();
  });
});
