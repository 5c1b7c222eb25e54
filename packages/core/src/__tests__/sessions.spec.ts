// The conformance suite every SessionStore passes (in memory, on files, on a real redis-server),
// then what is particular to the file store.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { lastValueFrom, NEVER } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { textOfMsg } from '../message/msg.js';
import { FileSessionStore, RedisSessionStore } from '../node/index.js';
import {
  InMemorySessionStore,
  SessionConflictError,
  SessionStoreError,
  type SessionStore,
} from '../state/session-store.js';
import { defineTool } from '../tool/tool.js';
import { ModelError } from '../model/model-error.js';
import { ModelTestingController, ScriptedChatModel } from '../testing/index.js';
import { startRedisServer, type RedisTestServer } from '../testing/node/index.js';
import { endOf, runReply } from './helpers.js';

let dir: string;
let redisServer: RedisTestServer;
let redis: Redis;
beforeAll(async () => {
  redisServer = await startRedisServer(); // a real server: the suite fails, never skips, without it
  redis = new Redis(redisServer.url);
}, 20_000);
afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
});
let storeCount = 0;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rxscope-sessions-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const stores: [string, () => SessionStore][] = [
  ['InMemorySessionStore', () => new InMemorySessionStore()],
  ['FileSessionStore', () => new FileSessionStore({ dir })],
  ['RedisSessionStore', () => new RedisSessionStore({ redis, prefix: `test:${++storeCount}:` })],
];

describe.each(stores)('%s', (_name, makeStore) => {
  it('saves with an optimistic version check: a stale writer gets a conflict and overwrites nothing', async () => {
    const store = makeStore();
    const state = new Agent({ model: new ScriptedChatModel([]), sessionId: 's' }).saveState();
    expect(await store.load('s')).toBeUndefined();
    expect(await store.save('s', state, 0)).toBe(1);
    expect(await store.save('s', { ...state, summary: 'second' }, 1)).toBe(2);
    const stale = store.save('s', { ...state, summary: 'stale' }, 1);
    await expect(stale).rejects.toBeInstanceOf(SessionConflictError);
    await expect(stale).rejects.toMatchObject({ code: 'session_conflict', expectedVersion: 1, actualVersion: 2 });
    expect(await store.load('s')).toMatchObject({ version: 2, state: { summary: 'second' } });
    await store.delete('s');
    expect(await store.load('s')).toBeUndefined();
  });

  it('an agent loads its session when a reply starts and saves at every end (a second process continues it)', async () => {
    const store = makeStore();
    const model = new ScriptedChatModel([{ text: 'Hello Ada.' }, { text: 'You are Ada.' }]);
    const first = new Agent({ model, store, sessionId: 'ada' });
    await runReply(first, first.reply('I am Ada'));
    // Another agent instance (another process, a restarted server) picks the session up.
    const second = new Agent({ model, store, sessionId: 'ada' });
    await runReply(second, second.reply('Who am I?'));
    expect(model.requests[1]!.messages.map(textOfMsg)).toEqual(['I am Ada', 'Hello Ada.', 'Who am I?']);
    expect((await store.load('ada'))!.state.context.map(textOfMsg)).toEqual([
      'I am Ada',
      'Hello Ada.',
      'Who am I?',
      'You are Ada.',
    ]);
  });

  it('saves on suspension, on errors and on interruptions', async () => {
    const store = makeStore();
    const danger = defineTool({
      name: 'danger',
      description: '',
      input: z.object({}),
      needsApproval: true,
      execute: () => 'done',
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'd1', name: 'danger', input: {} }] },
      { error: new ModelError('boom', { status: 500, retryable: true }) },
    ]);
    const agent = new Agent({ model, store, sessionId: 'x', tools: [danger] });
    await runReply(agent, agent.reply('do it'));
    expect((await store.load('x'))!.state.pending?.confirm.map((c) => c.id)).toEqual(['d1']);

    const failed = await runReply(
      agent,
      agent.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 'd1', confirmed: true }] }),
    );
    expect(endOf(failed).finishReason).toBe('error');
    const afterError = (await store.load('x'))!;
    expect(afterError.state.pending).toBeUndefined();
    expect(afterError.state.context).toHaveLength(2);

    const controller = new ModelTestingController();
    const agent2 = new Agent({ model: controller.model, store, sessionId: 'x' });
    const done = lastValueFrom(agent2.reply('tell me more'));
    await new Promise((r) => setTimeout(r, 10));
    controller.expectOne().streamText('Well');
    agent2.interrupt();
    await done;
    const afterInterrupt = (await store.load('x'))!;
    expect(afterInterrupt.version).toBe(afterError.version + 1);
    expect(afterInterrupt.state.context.map(textOfMsg).slice(-2)).toEqual(['tell me more', 'Well']);
  });

  it('two agents writing the same session concurrently: one wins, the other ends with a conflict error, nothing is lost', async () => {
    const store = makeStore();
    const seed = new Agent({ model: new ScriptedChatModel([{ text: 'seeded' }]), store, sessionId: 'shared' });
    await runReply(seed, seed.reply('seed'));
    // Only one of them at a time can hold the session's reply lease: the other runs without checkpoints, and says so.
    const reported: unknown[] = [];
    const a = new Agent({
      model: new ScriptedChatModel([{ text: 'A answers' }], { delayMs: 1 }),
      store,
      sessionId: 'shared',
      onBackgroundError: (e) => reported.push(e),
    });
    const b = new Agent({
      model: new ScriptedChatModel([{ text: 'B answers' }], { delayMs: 3 }),
      store,
      sessionId: 'shared',
      onBackgroundError: (e) => reported.push(e),
    });
    const [ea, eb] = await Promise.all([runReply(a, a.reply('from A')), runReply(b, b.reply('from B'))]);
    expect(endOf(ea).finishReason).toBe('completed');
    expect(endOf(eb)).toMatchObject({
      finishReason: 'error',
      error: { name: 'SessionConflictError', code: 'session_conflict' },
    });
    // The winner's exchange is stored; the loser's is still in its memory and its events.
    const stored = (await store.load('shared'))!.state.context.map(textOfMsg);
    expect(stored).toEqual(['seed', 'seeded', 'from A', 'A answers']);
    expect(b.context.map(textOfMsg)).toEqual(['seed', 'seeded', 'from B', 'B answers']);
    // (None when the first reply ended, and gave its lease up, before the second one began.)
    expect(reported.length).toBeLessThanOrEqual(1);
    for (const e of reported) expect(e).toMatchObject({ code: 'reply_leased', sessionId: 'shared' });
  });
});

describe('FileSessionStore on disk', () => {
  it('writes through a temporary file and rename, leaving no temporary or lock file behind', async () => {
    const store = new FileSessionStore({ dir });
    const state = new Agent({ model: new ScriptedChatModel([]), sessionId: 'a/b c' }).saveState();
    await Promise.all(
      [store.save('a/b c', state, 0), store.save('a/b c', state, 0)].map((p) => p.catch((e: unknown) => e)),
    );
    expect(await readdir(dir)).toEqual([`${encodeURIComponent('a/b c')}.json`]);
    const onDisk = JSON.parse(await readFile(store.fileOf('a/b c'), 'utf8')) as { version: number };
    expect(onDisk.version).toBe(1);
  });

  it('reports a corrupt session file with its path and the bad field', async () => {
    const store = new FileSessionStore({ dir });
    await writeFile(store.fileOf('bad'), '{"version": 1, "state": {"version": 2, "agentName": 5}}');
    await expect(store.load('bad')).rejects.toThrow(SessionStoreError);
    await expect(store.load('bad')).rejects.toThrow(/bad\.json: Invalid agent state at "agentName"/);
    await writeFile(store.fileOf('torn'), '{"version": 1, "sta');
    await expect(store.load('torn')).rejects.toThrow(/torn\.json is not valid JSON/);
    // An agent refuses to reply from a corrupt session instead of overwriting it.
    const agent = new Agent({ model: { modelName: 'm', provider: 'p', stream: () => NEVER }, store, sessionId: 'bad' });
    await expect(lastValueFrom(agent.reply('hi'))).rejects.toThrow(SessionStoreError);
  });

  it('checks the version of a file written in another layout (spaces, keys reordered) by reading it whole', async () => {
    const store = new FileSessionStore({ dir });
    const state = new Agent({ model: new ScriptedChatModel([]), sessionId: 'hand' }).saveState();
    await writeFile(store.fileOf('hand'), JSON.stringify({ state, version: 3 }, null, 2));
    await expect(store.save('hand', state, 2)).rejects.toThrow(SessionConflictError);
    await expect(store.save('hand', state, 3)).resolves.toBe(4);
    await expect(store.save('hand', state, 4)).resolves.toBe(5); // the store's own layout from here on
    await expect(store.save('hand', state, 4)).rejects.toThrow(SessionConflictError);
  });

  it('makes its directory again when it was removed after an earlier save', async () => {
    const sub = join(dir, 'nested', 'sessions');
    const store = new FileSessionStore({ dir: sub });
    const state = new Agent({ model: new ScriptedChatModel([]), sessionId: 'gone' }).saveState();
    await expect(store.save('gone', state, 0)).resolves.toBe(1);
    await rm(join(dir, 'nested'), { recursive: true, force: true });
    await expect(store.save('gone', state, 0)).resolves.toBe(1);
    expect((await store.load('gone'))?.version).toBe(1);
  });

  it('takes over a lock left by a dead process', async () => {
    const store = new FileSessionStore({ dir, lockTimeoutMs: 500 });
    await writeFile(`${store.fileOf('s')}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, at: Date.now() }));
    const state = new Agent({ model: new ScriptedChatModel([]), sessionId: 's' }).saveState();
    expect(await store.save('s', state, 0)).toBe(1);
  });

  it('times out on a lock held by a live writer', async () => {
    const store = new FileSessionStore({ dir, lockTimeoutMs: 100 });
    await writeFile(`${store.fileOf('s')}.lock`, JSON.stringify({ pid: process.ppid, at: Date.now() }));
    const state = new Agent({ model: new ScriptedChatModel([]), sessionId: 's' }).saveState();
    await expect(store.save('s', state, 0)).rejects.toThrow(/Timed out after 100 ms waiting for the lock/);
  });
});

it('an agent with a store needs a session id', () => {
  expect(() => new Agent({ model: new ScriptedChatModel([]), store: new InMemorySessionStore() })).toThrow(
    /needs a sessionId/,
  );
});
