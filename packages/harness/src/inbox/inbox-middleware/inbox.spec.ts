// InboxMiddleware: messages pushed to a session's inbox reach the running reply's next model
// request (from this process, and from another connection on a real redis-server), wait for the
// next reply when none runs, and are never lost when the reply ends first.
import {
  Agent,
  type AgentEvent,
  defineTool,
  InMemorySessionStore,
  type ModelRequest,
  type SessionStore,
  textOfMsg,
} from '@rxscope/core';
import { ofType, runReply, ScriptedChatModel } from '@rxscope/core/testing';
import { startRedisServer, type RedisTestServer } from '@rxscope/core/testing/node';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { InMemoryMessageBus } from '../../bus/in-memory-message-bus.js';
import type { MessageBus } from '../../bus/message-bus.js';
import { RedisMessageBus } from '../../redis/index.js';
import { inboxQueueOf, pushToInbox } from '../inbox-message.js';
import { InboxMiddleware } from './index.js';

let redisServer: RedisTestServer;
const clients: Redis[] = [];
beforeAll(async () => {
  redisServer = await startRedisServer();
}, 20_000);
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await redisServer?.stop();
});

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};
/** What the model reads as user turns: user messages, and hints (sent messages) inside the reply. */
const userTexts = (request: ModelRequest) =>
  request.messages.flatMap((m) =>
    m.role === 'user' ? [textOfMsg(m)] : m.content.flatMap((b) => (b.type === 'hint' ? [b.text] : [])),
  );
const userHints = (events: readonly AgentEvent[]) =>
  ofType(events, 'HINT_BLOCK')
    .filter((e) => e.hintSource === 'user')
    .map((e) => e.text);

/** A tool that runs until the test releases it, so the test can push while the reply runs. */
function gate() {
  let release!: () => void;
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const done = new Promise<void>((r) => (release = r));
  const tool = defineTool({
    name: 'build',
    description: 'builds the project',
    input: z.object({}),
    execute: async () => {
      started();
      await done;
      return 'built';
    },
  });
  return { tool, running, release };
}

function agentOn(
  bus: MessageBus,
  model: ScriptedChatModel,
  extra: Partial<ConstructorParameters<typeof Agent>[0]> = {},
) {
  return new Agent({ name: 'coder', sessionId: 's1', model, middlewares: [new InboxMiddleware({ bus })], ...extra });
}

describe('InboxMiddleware', () => {
  it('a message pushed while a tool runs is part of the very next model request, once, as a user hint', async () => {
    const bus = new InMemoryMessageBus();
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'build', input: {} }] },
      { text: 'Built, changelog updated.' },
      { text: 'Anything else?' },
    ]);
    const { tool, running, release } = gate();
    const agent = agentOn(bus, model, { tools: [tool] });
    const reply = runReply(agent, 'Build it');
    await running;
    await pushToInbox(bus, 's1', { text: 'Also update the changelog.', from: 'reviewer' });
    await until(() => agent.queued.length === 1, 'the message to reach the agent');
    release();
    const events = await reply;

    expect(model.requests).toHaveLength(2);
    expect(userTexts(model.requests[0]!)).toEqual(['Build it']);
    expect(userTexts(model.requests[1]!)).toEqual(['Build it', '[message from reviewer]\nAlso update the changelog.']);
    expect(userHints(events)).toEqual(['[message from reviewer]\nAlso update the changelog.']);
    // Taken before the reply's last step, so held by the state the reply ended with: gone from the
    // bus, and neither the next reply nor a fresh agent of the session gets it again.
    expect(await bus.peek(inboxQueueOf('s1'))).toEqual([]);
    expect(userHints(await runReply(agent, 'next'))).toEqual([]);
    const fresh = agentOn(bus, new ScriptedChatModel([{ text: 'Hello.' }]));
    expect(userHints(await runReply(fresh, 'hello'))).toEqual([]);
  });

  it('a message pushed while no reply runs waits on the bus and opens the next reply, after its input', async () => {
    const bus = new InMemoryMessageBus();
    const model = new ScriptedChatModel([{ text: 'one' }, { text: 'two' }]);
    const agent = agentOn(bus, model);
    await runReply(agent, 'first');
    await pushToInbox(bus, 's1', 'Use British spelling from now on.');
    expect(agent.queued).toEqual([]); // nobody listens between replies: it is on the bus
    const events = await runReply(agent, 'second');
    expect(userTexts(model.requests[1]!)).toEqual(['first', 'second', 'Use British spelling from now on.']);
    expect(userHints(events)).toEqual(['Use British spelling from now on.']);
  });

  it('a message pushed while a reply waits for a confirmation joins it when it resumes in a new agent, once', async () => {
    const bus = new InMemoryMessageBus();
    const pay = defineTool({
      name: 'pay',
      description: 'pays someone',
      input: z.object({ to: z.string() }),
      needsApproval: true,
      execute: ({ to }) => `paid ${to}`,
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'p1', name: 'pay', input: { to: 'Bob' } }] },
      { text: 'Paid, in pounds.' },
      { text: 'ok' },
    ]);
    const first = agentOn(bus, model, { tools: [pay] });
    await pushToInbox(bus, 's1', 'before');
    const paused = await runReply(first, 'Pay Bob.');
    expect(ofType(paused, 'REPLY_END')[0]!.finishReason).toBe('awaiting_confirmation');
    await pushToInbox(bus, 's1', 'Use pounds.');
    const second = agentOn(bus, model, { tools: [pay], state: first.saveState() });
    const resumed = await runReply(second, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: 'p1', confirmed: true }],
    });
    expect(ofType(resumed, 'REPLY_END')[0]!.finishReason).toBe('completed');
    expect(userTexts(model.requests[1]!)).toEqual(['Pay Bob.', 'before', 'Use pounds.']);
    expect(userHints(resumed)).toEqual(['Use pounds.']);
    // The resumed reply's end removes what it delivered from the bus.
    let left = await bus.peek(inboxQueueOf('s1'));
    for (let i = 0; i < 100 && left.length; i++) {
      await new Promise((r) => setTimeout(r, 10));
      left = await bus.peek(inboxQueueOf('s1'));
    }
    expect(left).toEqual([]);
    await runReply(second, 'next');
    expect(userTexts(model.requests[2]!)).toEqual(['Pay Bob.', 'before', 'Use pounds.', 'next']);
  });

  it('keeps the order of several messages', async () => {
    const bus = new InMemoryMessageBus();
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const agent = agentOn(bus, model);
    for (const text of ['one', 'two', 'three']) await pushToInbox(bus, 's1', text);
    await runReply(agent, 'go');
    expect(userTexts(model.requests[0]!)).toEqual(['go', 'one', 'two', 'three']);
  });

  it('a message drained just as the reply ends is not lost: it joins the next reply', async () => {
    const inner = new InMemoryMessageBus();
    const held: { release?: () => void } = {};
    const releaseIfHeld = (): void => held.release?.();
    // A bus whose reads after the first take a while (a slow network): the reply ends meanwhile.
    let reads = 0;
    const bus: MessageBus = Object.assign(Object.create(inner) as MessageBus, {
      peek: async <T>(queue: string, options?: { after?: string }) => {
        if (++reads > 1) await new Promise<void>((r) => (held.release = r));
        return inner.peek<T>(queue, options);
      },
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'build', input: {} }] },
      { text: 'done' },
      { text: 'next' },
    ]);
    const { tool, running, release } = gate();
    const agent = agentOn(bus, model, { tools: [tool] });
    const reply = runReply(agent, 'Build it');
    await running;
    await pushToInbox(inner, 's1', 'late news');
    await until(() => held.release !== undefined, 'the drain to start');
    release();
    await reply; // the reply ended while the message was being taken off the bus
    expect(userTexts(model.requests[1]!)).toEqual(['Build it']);
    held.release!();
    await until(() => agent.queued.length === 1, 'the drained message to reach the agent');
    delete held.release;
    const second = runReply(agent, 'next');
    await until(() => held.release !== undefined || model.requests.length === 3, 'the next reply');
    releaseIfHeld();
    const events = await second;
    expect(userTexts(model.requests[2]!)).toEqual(['Build it', 'next', 'late news']);
    expect(userHints(events)).toEqual(['late news']);
  });

  it('a failing bus never fails the reply; the failure is reported', async () => {
    const inner = new InMemoryMessageBus();
    const bus: MessageBus = Object.assign(Object.create(inner) as MessageBus, {
      peek: () => Promise.reject(new Error('connection lost')),
    });
    const reported: string[] = [];
    const model = new ScriptedChatModel([{ text: 'fine' }]);
    const agent = new Agent({
      sessionId: 's1',
      model,
      middlewares: [
        new InboxMiddleware({ bus, onError: (e, what) => reported.push(`${what}: ${(e as Error).message}`) }),
      ],
    });
    const events = await runReply(agent, 'hi');
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(reported[0]).toMatch(/inbox:s1 could not be read.*connection lost/);
  });

  it('refuses to start without a bus, and pushToInbox refuses a message without text', async () => {
    expect(() => new InboxMiddleware({} as never)).toThrow(/needs a message bus/);
    await expect(pushToInbox(new InMemoryMessageBus(), 's1', { text: '  ' })).rejects.toThrow(/non-empty string/);
  });

  it("across processes on Redis: a push from another connection reaches the running reply's next model request", async () => {
    const prefix = `inbox${Math.random().toString(36).slice(2)}:`;
    const [worker, front] = [new Redis(redisServer.url), new Redis(redisServer.url)];
    clients.push(worker, front);
    const workerBus = new RedisMessageBus({ redis: worker, prefix });
    const frontBus = new RedisMessageBus({ redis: front, prefix });
    try {
      const model = new ScriptedChatModel([
        { toolCalls: [{ id: 'c1', name: 'build', input: {} }] },
        { text: 'Done, tests kept.' },
        { text: 'Anything else?' },
      ]);
      const { tool, running, release } = gate();
      const agent = agentOn(workerBus, model, { tools: [tool] });
      const reply = runReply(agent, 'Build it');
      await running;
      await pushToInbox(frontBus, 's1', { text: 'Do not delete the tests.', from: 'front' });
      await until(() => agent.queued.length === 1, 'the message from the other connection');
      release();
      const events = await reply;
      expect(userTexts(model.requests[1]!)).toEqual(['Build it', '[message from front]\nDo not delete the tests.']);
      expect(userHints(events)).toEqual(['[message from front]\nDo not delete the tests.']);
      expect(userHints(await runReply(agent, 'next'))).toEqual([]);
      expect(await frontBus.peek(inboxQueueOf('s1'))).toEqual([]);
    } finally {
      await workerBus.close();
      await frontBus.close();
    }
  });

  it('at-least-once on Redis: a message taken by a reply whose process died before saving is delivered by the next reply, elsewhere', async () => {
    const prefix = `inbox${Math.random().toString(36).slice(2)}:`;
    const connections = [new Redis(redisServer.url), new Redis(redisServer.url), new Redis(redisServer.url)];
    clients.push(...connections);
    const [busA, busB, frontBus] = connections.map((redis) => new RedisMessageBus({ redis, prefix }));
    // One store for all "processes"; process A dies before its save reaches it (the save never happens).
    const shared = new InMemorySessionStore();
    let aDied = false;
    const storeOfA: SessionStore = {
      load: (id) => shared.load(id),
      save: (id, state, version) => (aDied ? new Promise<number>(() => undefined) : shared.save(id, state, version)),
      delete: (id) => shared.delete(id),
    };
    try {
      const { tool, running, release } = gate();
      const modelA = new ScriptedChatModel([
        { text: 'Hello.' },
        { toolCalls: [{ id: 'c1', name: 'build', input: {} }] },
        { text: 'Built, changelog updated.' },
      ]);
      const a = agentOn(busA!, modelA, { tools: [tool], store: storeOfA });
      await runReply(a, 'hi'); // saved
      const dying = runReply(a, 'Build it');
      await running;
      await pushToInbox(frontBus!, 's1', { text: 'Also update the changelog.', from: 'front' });
      await until(() => a.queued.length === 1, 'process A to take the message');
      aDied = true;
      release();
      await until(() => modelA.requests.length === 3, "A's next model request");
      expect(userTexts(modelA.requests[2]!).at(-1)).toBe('[message from front]\nAlso update the changelog.');
      void dying; // never ends: its save never reaches the store

      // Process B runs the session's next reply from the stored state: the message comes again.
      const modelB = new ScriptedChatModel([{ text: 'Changelog updated too.' }]);
      const b = agentOn(busB!, modelB, { store: shared });
      const events = await runReply(b, 'Did you build it?');
      expect(userTexts(modelB.requests[0]!)).toEqual([
        'hi',
        'Did you build it?',
        '[message from front]\nAlso update the changelog.',
      ]);
      expect(userHints(events)).toEqual(['[message from front]\nAlso update the changelog.']);

      // Saved with B's state: a third process does not get it again, and it leaves the bus.
      const modelC = new ScriptedChatModel([{ text: 'Nothing new.' }]);
      const c = agentOn(busB!, modelC, { store: shared });
      expect(userHints(await runReply(c, 'Anything new?'))).toEqual([]);
      expect(await frontBus!.peek(inboxQueueOf('s1'))).toEqual([]);
    } finally {
      for (const bus of [busA, busB, frontBus]) await bus!.close();
    }
  });
});
