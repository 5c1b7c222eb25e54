// InboxMiddleware: messages pushed to a session's inbox reach the running reply's next model
// request (from this process, and from another connection on a real redis-server), wait for the
// next reply when none runs, and are never lost when the reply ends first.
import { Agent, type AgentEvent, defineTool, type ModelRequest, textOfMsg } from '@rxscope/core';
import { ofType, runReply, ScriptedChatModel } from '@rxscope/core/testing';
import { startRedisServer, type RedisTestServer } from '@rxscope/core/testing/node';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { InMemoryMessageBus } from '../../bus/in-memory-message-bus.js';
import type { MessageBus } from '../../bus/message-bus.js';
import { RedisMessageBus } from '../../redis/index.js';
import { inboxQueueOf, pushToInbox } from '../../inbox/inbox-message.js';
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
    expect(await bus.drain(inboxQueueOf('s1'))).toEqual([]);
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
    // A bus whose drains after the first take a while (a slow network): the reply ends meanwhile.
    let drains = 0;
    const bus: MessageBus = Object.assign(Object.create(inner) as MessageBus, {
      drain: async <T>(queue: string) => {
        if (++drains > 1) await new Promise<void>((r) => (held.release = r));
        return inner.drain<T>(queue);
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
      drain: () => Promise.reject(new Error('connection lost')),
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
      expect(await frontBus.drain(inboxQueueOf('s1'))).toEqual([]);
    } finally {
      await workerBus.close();
      await frontBus.close();
    }
  });
});
