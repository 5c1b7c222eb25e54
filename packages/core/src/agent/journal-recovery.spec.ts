import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import type { AgentEvent } from '../event/events.js';
import type { ModelRequest } from '../model/chat-model.js';
import type { JournalEntry } from '../state/journal.js';
import { JournalDamagedError, ReplyLeaseError } from '../state/journal.js';
import { InMemorySessionStore, type SessionStore } from '../state/session-store.js';
import { assertConsistentConversation, assertReplyGrammar } from '../testing/grammar.js';
import { ScriptedChatModel } from '../testing/scripted-model.js';
import type { ScriptedTurn } from '../testing/scripted-turn.js';
import { defineTool, type Tool } from '../tool/tool.js';
import { Agent } from './agent.js';
import { AgentUsageError } from './errors.js';

/**
 * A process that dies: the store of the "dead" agent stops answering (every call hangs, as a
 * killed process's would never happen), so its lease is no longer renewed and nothing more of
 * it is written, while the real store stays for the process that recovers.
 */
function killable(store: SessionStore): { store: SessionStore; kill(): void } {
  let dead = false;
  const hang = new Promise<never>(() => undefined);
  const wrap =
    <A extends unknown[], R>(f: ((...a: A) => Promise<R>) | undefined) =>
    (...a: A): Promise<R> =>
      dead ? hang : f!.apply(store, a);
  return {
    store: {
      load: wrap(store.load),
      save: wrap(store.save),
      delete: wrap(store.delete),
      appendJournal: wrap(store.appendJournal),
      readJournal: wrap(store.readJournal),
      clearJournal: wrap(store.clearJournal),
      acquireLease: wrap(store.acquireLease),
      releaseLease: wrap(store.releaseLease),
    },
    kill: () => (dead = true),
  };
}

/** The model's answer to each request: a tool call, then text once every call has a result. */
const turns =
  (calls: readonly { name: string; input: unknown }[]) =>
  (request: ModelRequest): ScriptedTurn => {
    const results = request.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result'));
    return results.length || !calls.length ? { text: `done after ${results.length} results` } : { toolCalls: calls };
  };

const collect = (events$: ReturnType<Agent['reply']>) => lastValueFrom(events$.pipe(toArray()));

const resultsOf = (events: readonly AgentEvent[]) =>
  events.flatMap((e) =>
    e.type === 'TOOL_RESULT_END' ? [{ id: e.toolCallId, status: e.status, output: e.output }] : [],
  );

describe('step checkpoints and recovery after a crash', () => {
  const LEASE = 150;

  /** Runs a reply in a "process" that dies while `blocking` runs; resolves once it runs. */
  async function crashWhile(
    store: SessionStore,
    tools: Tool[],
    calls: readonly { name: string; input: unknown }[],
    running: Promise<void>,
  ): Promise<{ replyId: string }> {
    const dying = killable(store);
    const agent = new Agent({
      name: 'a',
      model: new ScriptedChatModel(turns(calls)),
      tools,
      store: dying.store,
      sessionId: 's1',
      checkpoints: { leaseMs: LEASE },
    });
    let replyId = '';
    agent.reply('refund order 7').subscribe((e) => (replyId ||= e.replyId));
    await running;
    dying.kill();
    return { replyId };
  }

  const recovering = (store: SessionStore, tools: Tool[], extra = {}) =>
    new Agent({
      name: 'a',
      model: new ScriptedChatModel(turns([])),
      tools,
      store,
      sessionId: 's1',
      checkpoints: { leaseMs: LEASE },
      ...extra,
    });

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('journals a reply step by step and drops the journal once the reply is saved', async () => {
    const store = new InMemorySessionStore();
    const appended: JournalEntry[] = [];
    const spy: SessionStore = Object.assign(Object.create(store) as SessionStore, {
      appendJournal: (id: string, e: JournalEntry) => (appended.push(e), store.appendJournal(id, e)),
    });
    const add = defineTool({
      name: 'add',
      description: 'adds',
      input: z.object({ a: z.number() }),
      execute: ({ a }) => a + 1,
    });
    const agent = new Agent({
      model: new ScriptedChatModel(turns([{ name: 'add', input: { a: 1 } }])),
      tools: [add],
      store: spy,
      sessionId: 's1',
    });
    const events = await collect(agent.reply('go'));
    assertReplyGrammar(events);
    expect(appended[0]!.input?.map((m) => m.role)).toEqual(['user']);
    const started = appended.findIndex((e) => e.started?.name === 'add');
    const result = appended.findIndex((e) => e.events.some((x) => x.type === 'TOOL_RESULT_END'));
    expect(started).toBeGreaterThan(0);
    expect(result).toBeGreaterThan(started);
    expect((await store.readJournal('s1')).entries).toEqual([]);
    expect(await agent.recoverable()).toBeUndefined();
  });

  it('never runs a started non-idempotent tool again: the model is told its outcome is unknown', async () => {
    const store = new InMemorySessionStore();
    let runs = 0;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const refund = defineTool({
      name: 'refund',
      description: 'refunds',
      input: z.object({ order: z.number() }),
      execute: () => {
        runs++;
        started();
        return new Promise<string>(() => undefined); // the process dies while it runs
      },
    });
    const { replyId } = await crashWhile(store, [refund], [{ name: 'refund', input: { order: 7 } }], running);
    const agent = recovering(store, [refund]);
    expect(await agent.recoverable()).toMatchObject({ replyId, fromStep: 1, started: [expect.any(String)] });
    await sleep(LEASE + 50);
    const events = await collect(agent.reply({ type: 'RECOVER_REPLY' }));
    assertReplyGrammar(events);
    assertConsistentConversation(agent.context);
    expect(runs).toBe(1);
    expect(events.every((e) => e.replyId === replyId)).toBe(true);
    expect(events[1]).toMatchObject({ type: 'CUSTOM', name: 'reply_recovered', value: { fromStep: 1 } });
    expect(resultsOf(events)).toEqual([
      {
        id: expect.any(String),
        status: 'interrupted',
        output: [{ type: 'text', text: expect.stringContaining('unknown') }],
      },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(agent.context.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect((await store.readJournal('s1')).entries).toEqual([]);
  });

  it('keeps the shared state a crashed reply had changed: it is folded from the journal', async () => {
    const store = new InMemorySessionStore();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const mark = defineTool({
      name: 'mark',
      description: 'marks',
      input: z.object({}),
      execute: (_i, toolCtx) => (toolCtx.sharedState!.set({ refund: 'pending' }), 'marked'),
    });
    const refund = defineTool({
      name: 'refund',
      description: 'refunds',
      input: z.object({}),
      execute: () => {
        setTimeout(started, 20); // the mark's result is journaled by then
        return new Promise<string>(() => undefined); // the process dies while it runs
      },
    });
    const calls = [
      { name: 'mark', input: {} },
      { name: 'refund', input: {} },
    ];
    await crashWhile(store, [mark, refund], calls, running);
    expect((await store.load('s1'))?.state.sharedState).toBeUndefined(); // the dead process never saved it
    const agent = recovering(store, [mark, refund]);
    await sleep(LEASE + 50);
    const events = await collect(agent.reply({ type: 'RECOVER_REPLY' }));
    assertReplyGrammar(events);
    expect(agent.saveState().sharedState).toEqual({ refund: 'pending' });
    expect((await store.load('s1'))?.state.sharedState).toEqual({ refund: 'pending' });
  });

  it('runs an idempotent tool again with the same idempotency key, and asks recover() otherwise', async () => {
    const store = new InMemorySessionStore();
    const keys: string[] = [];
    const recovered: string[] = [];
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let first = true;
    const lookup = defineTool({
      name: 'lookup',
      description: 'reads',
      input: z.object({}),
      idempotent: true,
      execute: (_i, ctx) => (keys.push(ctx.idempotencyKey), 'found'),
    });
    const pay = defineTool({
      name: 'pay',
      description: 'pays',
      input: z.object({}),
      execute: (_i, ctx) => {
        keys.push(ctx.idempotencyKey);
        if (first) {
          first = false;
          started();
          return new Promise<string>(() => undefined);
        }
        return 'paid again';
      },
      recover: (_i, ctx) => (recovered.push(ctx.idempotencyKey), 'paid (found by its key)'),
    });
    await crashWhile(
      store,
      [lookup, pay],
      [
        { name: 'lookup', input: {} },
        { name: 'pay', input: {} },
      ],
      running,
    );
    await sleep(LEASE + 50);
    const events = await collect(recovering(store, [lookup, pay]).reply({ type: 'RECOVER_REPLY' }));
    assertReplyGrammar(events);
    // lookup had its result journaled: replayed, not run again; pay was cut off: recovered by its key.
    expect(keys).toHaveLength(2);
    expect(recovered).toEqual([keys[1]]);
    expect(resultsOf(events).map((r) => r.output)).toEqual([[{ type: 'text', text: 'paid (found by its key)' }]]);
  });

  it('reruns a started idempotent tool', async () => {
    const store = new InMemorySessionStore();
    const keys: string[] = [];
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const fetchTool = defineTool({
      name: 'fetch',
      description: 'reads',
      input: z.object({}),
      idempotent: true,
      execute: (_i, ctx) => {
        keys.push(ctx.idempotencyKey);
        if (keys.length === 1) {
          started();
          return new Promise<string>(() => undefined);
        }
        return 'page';
      },
    });
    await crashWhile(store, [fetchTool], [{ name: 'fetch', input: {} }], running);
    await sleep(LEASE + 50);
    const events = await collect(recovering(store, [fetchTool]).reply({ type: 'RECOVER_REPLY' }));
    expect(keys).toEqual([keys[0], keys[0]]);
    expect(resultsOf(events)).toEqual([
      { id: expect.any(String), status: 'success', output: [{ type: 'text', text: 'page' }] },
    ]);
  });

  it('refuses to recover a reply whose lease still runs, and when there is nothing to recover', async () => {
    const store = new InMemorySessionStore();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const slow = defineTool({
      name: 'slow',
      description: 'slow',
      input: z.object({}),
      execute: () => (started(), new Promise<string>(() => undefined)),
    });
    const alive = new Agent({
      name: 'a',
      model: new ScriptedChatModel(turns([{ name: 'slow', input: {} }])),
      tools: [slow],
      store,
      sessionId: 's1',
      checkpoints: { leaseMs: LEASE },
    });
    const sub = alive.reply('go').subscribe();
    await running;
    await sleep(LEASE * 2); // renewed meanwhile: still held
    await expect(collect(recovering(store, [slow]).reply({ type: 'RECOVER_REPLY' }))).rejects.toBeInstanceOf(
      ReplyLeaseError,
    );
    sub.unsubscribe();
    await sleep(20);
    await expect(collect(recovering(store, [slow]).reply({ type: 'RECOVER_REPLY' }))).rejects.toThrow(
      /has no reply to recover/,
    );
  });

  it('recovers up to the last whole entry of a damaged journal and reports the damage', async () => {
    const store = new InMemorySessionStore();
    const reported: unknown[] = [];
    const add = defineTool({ name: 'add', description: 'adds', input: z.object({}), execute: () => 'ok' });
    const damaged: SessionStore = Object.assign(Object.create(store) as SessionStore, {
      readJournal: async (id: string) => ({
        ...(await store.readJournal(id)),
        damaged: { where: 'memory:s1', entry: 3, reason: 'cut off' },
      }),
    });
    await store.appendJournal('s1', {
      v: 1,
      base: 0,
      replyId: 'reply_x',
      step: 0,
      toolSteps: 0,
      events: [],
      input: [{ id: 'm1', role: 'user', name: 'user', content: [{ type: 'text', text: 'hi' }], createdAt: 1 }],
    });
    const agent = recovering(damaged, [add], { onBackgroundError: (e: unknown) => reported.push(e) });
    const events = await collect(agent.reply({ type: 'RECOVER_REPLY' }));
    expect(events[1]).toMatchObject({ name: 'reply_recovered', value: { damaged: { where: 'memory:s1', entry: 3 } } });
    expect(reported).toEqual([expect.any(JournalDamagedError)]);
    expect((reported[0] as Error).message).toMatch(/memory:s1 is damaged at entry 3/);
    expect(agent.context.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('refuses RECOVER_REPLY without a journal, and bad checkpoint options', async () => {
    const plain = new Agent({ model: new ScriptedChatModel([{ text: 'hi' }]) });
    await expect(collect(plain.reply({ type: 'RECOVER_REPLY' }))).rejects.toThrow(AgentUsageError);
    expect(await plain.recoverable()).toBeUndefined();
    const model = new ScriptedChatModel([]);
    expect(() => new Agent({ model, checkpoints: { leaseMS: 5 } as never })).toThrow(/did you mean "leaseMs"/);
    expect(() => new Agent({ model, checkpoints: { leaseMs: 5 } })).toThrow(/100 to 3,600,000/);
    expect(() =>
      defineTool({ name: 't', description: 'd', input: z.object({}), execute: () => '', recover: 1 as never }),
    ).toThrow(/recover must be a function/);
  });
});
