// The journal and lease every journaled SessionStore keeps (on files, on a real redis-server),
// then a reply recovered from each, and what is particular to each (a torn file, a newer format).
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { lastValueFrom, takeWhile, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import type { ModelRequest } from '../model/chat-model.js';
import { JOURNAL_VERSION, JournalVersionError, type JournalEntry } from '../state/journal.js';
import type { SessionStore } from '../state/session-store.js';
import { assertConsistentConversation, assertReplyGrammar } from '../testing/grammar.js';
import { ScriptedChatModel } from '../testing/scripted-model.js';
import { startRedisServer, type RedisTestServer } from '../testing/node/index.js';
import { defineTool } from '../tool/tool.js';
import { FileSessionStore } from './file-session-store.js';
import { RedisSessionStore } from './redis-session-store.js';
import { AgentSessions } from './sessions/agent-sessions.js';

let dir: string;
let redisServer: RedisTestServer;
let redis: Redis;
let count = 0;
beforeAll(async () => {
  redisServer = await startRedisServer(); // a real server: the suite fails, never skips, without it
  redis = new Redis(redisServer.url);
}, 20_000);
afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rxscope-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const entry = (replyId: string, extra: Partial<JournalEntry> = {}): JournalEntry => ({
  v: JOURNAL_VERSION,
  base: 0,
  replyId,
  step: 1,
  toolSteps: 0,
  events: [],
  ...extra,
});

const stores: [string, () => SessionStore][] = [
  ['FileSessionStore', () => new FileSessionStore({ dir })],
  ['RedisSessionStore', () => new RedisSessionStore({ redis, prefix: `journal:${++count}:` })],
];

describe.each(stores)('%s journal', (_name, makeStore) => {
  it('appends entries, reads them in order (from an index), lists and drops the journal', async () => {
    const store = makeStore();
    await store.appendJournal!('s1', entry('r1', { step: 0, input: [] }));
    await store.appendJournal!('s1', entry('r1', { started: { callId: 'c1', name: 'pay' } }));
    await store.appendJournal!('other', entry('r2'));
    expect((await store.readJournal!('s1')).entries.map((e) => e.started?.callId)).toEqual([undefined, 'c1']);
    expect((await store.readJournal!('s1', 1)).entries).toHaveLength(1);
    expect((await store.listJournals!()).sort()).toEqual(['other', 's1']);
    await store.clearJournal!('s1');
    expect(await store.readJournal!('s1')).toEqual({ entries: [] });
    expect(await store.listJournals!()).toEqual(['other']);
  });

  it('gives the lease to one holder at a time, to another once it expired or was given up', async () => {
    const store = makeStore();
    expect(await store.acquireLease!('s1', 'p1', 200)).toBe(true);
    expect(await store.acquireLease!('s1', 'p2', 200)).toBe(false);
    expect(await store.acquireLease!('s1', 'p1', 200)).toBe(true); // renewed
    await new Promise((r) => setTimeout(r, 260));
    expect(await store.acquireLease!('s1', 'p2', 200)).toBe(true);
    await store.releaseLease!('s1', 'p1'); // not p1's any more: nothing changes
    expect(await store.acquireLease!('s1', 'p1', 200)).toBe(false);
    await store.releaseLease!('s1', 'p2');
    expect(await store.acquireLease!('s1', 'p1', 200)).toBe(true);
  });

  it('continues a reply left running from its checkpoints, without running its finished tool again', async () => {
    const store = makeStore();
    let runs = 0;
    const lookup = defineTool({
      name: 'lookup',
      description: 'reads',
      input: z.object({}),
      execute: () => `run ${++runs}`,
    });
    const model = (request: ModelRequest) =>
      request.messages.some((m) => m.content.some((b) => b.type === 'tool_result'))
        ? { text: 'all done' }
        : { toolCalls: [{ name: 'lookup', input: {} }] };
    // The first process: its reply ran the tool and wrote its answer, then the process "died" before saving.
    // A killed process writes nothing more: from its death on, every call of its store hangs.
    let killed = false;
    const hang = new Promise<never>(() => undefined);
    const dead = new Proxy(store, {
      get: (target, key) => {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) =>
          killed || key === 'save' ? hang : (value as (...a: unknown[]) => unknown).apply(target, args);
      },
    });
    const crashed = new Agent({
      name: 'a',
      model: new ScriptedChatModel(model),
      tools: [lookup],
      store: dead,
      sessionId: 's1',
      checkpoints: { leaseMs: 100 },
    });
    crashed.reply('look it up').subscribe();
    // Killed once its last checkpoint (the steps are over) is written, before its save.
    while (!(await store.readJournal!('s1')).entries.some((e) => e.done)) await new Promise((r) => setTimeout(r, 10));
    expect(runs).toBe(1);
    killed = true;
    await new Promise((r) => setTimeout(r, 150)); // the lease is renewed and released by nobody: it expires
    const agent = new Agent({
      name: 'a',
      model: new ScriptedChatModel(model),
      tools: [lookup],
      store,
      sessionId: 's1',
    });
    expect(await agent.recoverable()).toMatchObject({ started: [], fromStep: 2 });
    const events = await lastValueFrom(agent.reply({ type: 'RECOVER_REPLY' }).pipe(toArray()));
    assertReplyGrammar(events);
    assertConsistentConversation(agent.context);
    expect(runs).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    const stored = (await store.load('s1'))!.state;
    expect(stored.context.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(stored.context[1]!.content.map((b) => b.type)).toEqual(['tool_call', 'tool_result', 'text']);
    expect((await store.readJournal!('s1')).entries).toEqual([]);
  });

  it('sessions.recover() continues every reply left running and says which, leaving one another process holds', async () => {
    const store = makeStore();
    const hang = new Promise<never>(() => undefined);
    let killed = false;
    // "Process" one: a reply per session, each cut off while its tool runs; then it dies.
    const dying = new Proxy(store, {
      get: (target, key) => {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => (killed ? hang : (value as (...a: unknown[]) => unknown).apply(target, args));
      },
    });
    let started = 0;
    const stuck = defineTool({
      name: 'stuck',
      description: 'hangs once',
      input: z.object({}),
      idempotent: true,
      execute: () => (++started <= 2 ? hang : 'done'),
    });
    const model = (request: ModelRequest) =>
      request.messages.some((m) => m.content.some((b) => b.type === 'tool_result'))
        ? { text: 'finished' }
        : { toolCalls: [{ name: 'stuck', input: {} }] };
    for (const id of ['a', 'b']) {
      const agent = new Agent({
        name: 'bot',
        model: new ScriptedChatModel(model),
        tools: [stuck],
        store: dying,
        sessionId: id,
        checkpoints: { leaseMs: 100 },
      });
      agent.reply(`hello ${id}`).subscribe();
    }
    while (started < 2) await new Promise((r) => setTimeout(r, 10));
    while ((await store.readJournal!('b')).entries.every((e) => !e.started))
      await new Promise((r) => setTimeout(r, 10));
    killed = true;
    await new Promise((r) => setTimeout(r, 150));
    // Session "b" is taken meanwhile by another live process: its lease runs.
    expect(await store.acquireLease!('b', 'another-process', 60_000)).toBe(true);
    const sessions = new AgentSessions({
      agent: (id) =>
        new Agent({ name: 'bot', model: new ScriptedChatModel(model), tools: [stuck], store, sessionId: id }),
      store,
    });
    const heard = lastValueFrom(
      sessions.events('a').pipe(
        takeWhile((e) => e.type !== 'REPLY_END', true),
        toArray(),
      ),
    );
    const report = await sessions.recover();
    expect(report.recovered).toEqual([{ sessionId: 'a', replyId: expect.any(String), fromStep: 1 }]);
    expect(report.skipped).toEqual([{ sessionId: 'b', reason: expect.stringContaining('held by another process') }]);
    const events = await heard;
    expect(events.map((e) => (e.type === 'CUSTOM' ? e.name : e.type))).toEqual([
      'REPLY_START',
      'reply_recovered',
      'TOOL_RESULT_START',
      'TOOL_RESULT_DELTA',
      'TOOL_RESULT_END',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'MODEL_CALL_END',
      'REPLY_END',
    ]);
    expect(events.every((e) => e.replyId === report.recovered[0]!.replyId)).toBe(true);
    await store.releaseLease!('b', 'another-process');
  });

  it(`refuses a journal written in a newer format, naming both versions`, async () => {
    const store = makeStore();
    await store.appendJournal!('s1', entry('r1', { v: JOURNAL_VERSION + 1 }));
    const read = store.readJournal!('s1');
    await expect(read).rejects.toBeInstanceOf(JournalVersionError);
    await expect(store.readJournal!('s1')).rejects.toThrow(
      new RegExp(`format version ${JOURNAL_VERSION + 1}, newer than this build reads \\(${JOURNAL_VERSION}\\)`),
    );
  });
});

describe('FileSessionStore journal on disk', () => {
  it('recovers up to the last whole entry of a torn file, naming the file and the entry', async () => {
    const store = new FileSessionStore({ dir });
    await store.appendJournal('s 1', entry('r1', { step: 0, input: [] }));
    await store.appendJournal('s 1', entry('r1'));
    const file = store.journalOf('s 1');
    await appendFile(file, '{"v":1,"base":0,"replyId":"r1","ste'); // a write cut off by a crash
    const read = await store.readJournal('s 1');
    expect(read.entries).toHaveLength(2);
    expect(read.damaged).toEqual({ where: file, entry: 2, reason: expect.stringContaining('cut off') });
    // The recovery cuts the torn end off: what it appends next follows the whole entries.
    await store.repairJournal('s 1', read.damaged!);
    await store.appendJournal('s 1', entry('r1', { step: 2 }));
    expect(await store.readJournal('s 1')).toEqual({
      entries: [expect.anything(), expect.anything(), expect.objectContaining({ step: 2 })],
    });
  });

  it('stops at a corrupt line in the middle, and refuses unknown options', async () => {
    const store = new FileSessionStore({ dir });
    await store.appendJournal('s1', entry('r1'));
    const file = store.journalOf('s1');
    await writeFile(file, `${await readFile(file, 'utf8')}not json\n${JSON.stringify(entry('r1'))}\n`);
    const read = await store.readJournal('s1');
    expect(read.entries).toHaveLength(1);
    expect(read.damaged).toMatchObject({ where: file, entry: 1 });
    expect(() => new FileSessionStore({ dir, fsynk: false } as never)).toThrow(/did you mean "fsync"/);
  });
});
