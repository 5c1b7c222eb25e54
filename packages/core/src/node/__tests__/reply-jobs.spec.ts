// Replies as BullMQ jobs against a real redis-server: a job's reply reaches a bus listener on
// another connection, a confirmation answered by a job on another worker resumes the suspended
// reply, a refused input fails its job for good, and a worker that dies mid-reply (closed without
// completing) has its job handed to another worker by BullMQ's stalled-job recovery, which runs
// the reply again from the saved session. Models: the OpenAI-compatible test server over HTTP.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { lastValueFrom, takeWhile, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../../agent/agent.js';
import type { AgentEvent } from '../../event/events.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { textOfMsg } from '../../message/msg.js';
import { defineTool } from '../../tool/tool.js';
import { assertConsistentConversation, assertReplyGrammar } from '../../testing/index.js';
import {
  startOpenAITestServer,
  startRedisServer,
  type OpenAITestServer,
  type RedisTestServer,
} from '../../testing/node/index.js';
import { FileSessionStore, RedisSessionEventBus } from '../index.js';
import { ReplyQueue, ReplyWorker, type ReplyWorkerOptions } from '../bullmq/index.js';
import { waitFor } from './helpers.js';

const endsOf = (events: AgentEvent[]) => events.filter((e) => e.type === 'REPLY_END');

describe('replies as BullMQ jobs on a real redis-server', () => {
  jest.setTimeout(30_000);
  let redisServer: RedisTestServer;
  let model: OpenAITestServer | undefined;
  let dir: string;
  let store: FileSessionStore;
  let name: string;
  let closers: Array<() => Promise<unknown>>;
  const shipped: number[] = [];

  beforeAll(async () => {
    redisServer = await startRedisServer();
  }, 20_000);
  afterAll(() => redisServer?.stop());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rxscope-jobs-'));
    store = new FileSessionStore({ dir });
    name = `replies-${Math.random().toString(36).slice(2)}`;
    closers = [];
    shipped.length = 0;
  });
  afterEach(async () => {
    for (const close of closers.reverse()) await close();
    await model?.close();
    model = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const connection = () => {
    const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
    closers.push(async () => redis.disconnect());
    return redis;
  };
  const newBus = () => {
    const bus = new RedisSessionEventBus({ redis: connection(), prefix: `${name}:` });
    closers.push(() => bus.close());
    return bus;
  };
  const newQueue = () => {
    const queue = new ReplyQueue({ connection: connection(), name });
    closers.push(() => queue.close());
    return queue;
  };
  const ship = defineTool({
    name: 'ship_order',
    description: 'Ships an order',
    input: z.object({ order: z.number() }),
    needsApproval: true,
    execute: ({ order }) => {
      shipped.push(order);
      return `order ${order} shipped`;
    },
  });
  const newWorker = (options: Partial<ReplyWorkerOptions> = {}, checkpoints = true) => {
    const chat = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model!.url });
    const worker = new ReplyWorker({
      connection: connection(),
      name,
      bus: newBus(),
      agent: (sessionId) => new Agent({ name: 'shop', model: chat, tools: [ship], store, sessionId, checkpoints }),
      ...options,
    });
    closers.push(() => worker.close());
    return worker;
  };
  /** The session's events as a listener on its own connection sees them, until `count` replies ended. */
  const listen = (sessionId: string, count: number) => {
    let ends = 0;
    return lastValueFrom(
      newBus()
        .events(sessionId)
        .pipe(
          takeWhile((e) => !(e.type === 'REPLY_END' && e.source === 'shop' && ++ends === count), true),
          toArray(),
        ),
    );
  };

  it('runs a job as a reply: events reach a listener on another connection, the session is saved', async () => {
    model = await startOpenAITestServer({ script: [{ text: ['Hello ', 'from a worker.'] }] });
    newWorker();
    const queue = newQueue();
    const heard = listen('s1', 1);
    await new Promise((r) => setTimeout(r, 50));
    const job = await queue.enqueue('s1', 'Hi');
    const result = await queue.result(job, 10_000);
    const events = await heard;
    expect(result.finishReason).toBe('completed');
    assertReplyGrammar(events);
    expect(events[0]).toMatchObject({ type: 'REPLY_START', replyId: result.replyId });
    const stored = await store.load('s1');
    expect(stored!.state.context.map((m) => [m.role, textOfMsg(m)])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello from a worker.'],
    ]);
  });

  it('resumes on a second worker a reply suspended for confirmation on the first', async () => {
    model = await startOpenAITestServer({
      script: [
        { text: ['Shipping.'], toolCalls: [{ id: 'call_1', name: 'ship_order', arguments: { order: 7 } }] },
        { text: ['Order 7 is on its way.'] },
      ],
    });
    const first = newWorker();
    const queue = newQueue();
    const heard = listen('s2', 2);
    await new Promise((r) => setTimeout(r, 50));
    const asked = await queue.result(await queue.enqueue('s2', 'Ship order 7'), 10_000);
    expect(asked.finishReason).toBe('awaiting_confirmation');
    expect(shipped).toEqual([]);
    await first.close(); // the answer can only be run by the other worker
    newWorker();
    const answered = await queue.result(
      await queue.enqueue('s2', { type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 'call_1', confirmed: true }] }),
      10_000,
    );
    expect(answered).toEqual({ replyId: asked.replyId, finishReason: 'completed' });
    expect(shipped).toEqual([7]);
    const events = await heard;
    expect(events.some((e) => e.type === 'REQUIRE_USER_CONFIRM')).toBe(true);
    expect(endsOf(events).map((e) => e.type === 'REPLY_END' && e.finishReason)).toEqual([
      'awaiting_confirmation',
      'completed',
    ]);
    assertConsistentConversation((await store.load('s2'))!.state.context);
  });

  it('shuts a worker down gracefully: the running reply is saved, and a RESUME_REPLY job finishes it on another worker', async () => {
    model = await startOpenAITestServer({
      script: [
        { text: ['Packing.'], toolCalls: [{ id: 'call_1', name: 'pack', arguments: {} }] },
        { text: ['Packed.'] },
      ],
    });
    let packs = 0;
    const pack = defineTool({
      name: 'pack',
      description: 'Packs',
      input: z.object({}),
      execute: async () => {
        packs++;
        await new Promise((r) => setTimeout(r, 300));
        return 'packed';
      },
    });
    const agent = (sessionId: string) =>
      new Agent({
        name: 'shop',
        model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model!.url }),
        tools: [pack],
        store,
        sessionId,
      });
    const first = newWorker({ agent });
    const queue = newQueue();
    const job = await queue.enqueue('s5', 'Pack it');
    await waitFor(() => packs === 1);
    const report = await first.shutdown({ graceMs: 5000, reason: 'received SIGTERM' });
    expect(report.suspended).toEqual(['s5']);
    expect(await queue.result(job, 10_000)).toMatchObject({ finishReason: 'shutdown' });
    newWorker({ agent });
    const resumed = await queue.result(await queue.enqueue('s5', { type: 'RESUME_REPLY' }), 10_000);
    expect(resumed).toMatchObject({ finishReason: 'completed' });
    expect(packs).toBe(1);
    expect(textOfMsg((await store.load('s5'))!.state.context.at(-1)!)).toContain('Packed.');
  });

  it('fails for good (no retry) a job whose input the agent refuses', async () => {
    model = await startOpenAITestServer({ script: [] });
    newWorker();
    const queue = newQueue();
    const job = await queue.enqueue('s3', { type: 'USER_CONFIRM_RESULT', results: [] }, { attempts: 3 });
    await expect(queue.result(job, 10_000)).rejects.toThrow('has no suspended reply');
    expect((await queue.queue.getJob(job.id!))!.attemptsMade).toBe(1);
  });

  it('without checkpoints, hands the job of a worker that died mid-reply to another worker, which runs it again from the saved session', async () => {
    model = await startOpenAITestServer({
      script: [
        { text: ['First answer.'] },
        { text: ['never ', 'finished'], chunkDelayMs: 60_000 }, // the dying worker's model call hangs
        { text: ['Second answer, ', 'from the other worker.'] },
      ],
    });
    // Every worker of a queue checks for stalled jobs at the same interval (the check is shared).
    const late: unknown[] = [];
    // (Its reply keeps running in this test's process, so it must not hold the session's lease.)
    const dying = newWorker({ lockDuration: 1000, stalledInterval: 300, onError: (e) => late.push(e) }, false);
    const queue = newQueue();
    await queue.result(await queue.enqueue('s4', 'First question'), 10_000);
    const saved = (await store.load('s4'))!;
    const heard = listen('s4', 2);
    await new Promise((r) => setTimeout(r, 50));
    const job = await queue.enqueue('s4', 'Second question');
    await waitFor(() => model!.requests.length === 2);
    await dying.worker.close(true); // gone without completing: its lock is no longer renewed
    newWorker({ lockDuration: 1000, stalledInterval: 300 });
    const result = await queue.result(job, 15_000);
    expect(result.finishReason).toBe('completed');

    const events = await heard;
    const ends = endsOf(events);
    expect(ends[0]).toMatchObject({
      finishReason: 'error',
      error: { message: expect.stringContaining('worker running this reply stopped') },
    });
    expect(ends[1]).toMatchObject({ replyId: result.replyId, finishReason: 'completed' });
    expect(ends[0]!.replyId).not.toBe(result.replyId);

    const stored = (await store.load('s4'))!;
    expect(stored.version).toBe(saved.version + 1);
    expect(stored.state.context.map((m) => [m.role, textOfMsg(m)])).toEqual([
      ['user', 'First question'],
      ['assistant', 'First answer.'],
      ['user', 'Second question'],
      ['assistant', 'Second answer, from the other worker.'],
    ]);

    // The closed worker's reply, still in memory here, fails when its model goes away: its late
    // save is refused (the session moved on), so it overwrites nothing.
    await model.close();
    await waitFor(() => dying.runningSessions().length === 0, 5000);
    expect((await store.load('s4'))!.version).toBe(stored.version);
  });

  it("runs one session's replies one at a time, in enqueue order, across workers; other sessions are not held up", async () => {
    const lastUserText = (body: { messages?: readonly { role: string; content?: unknown }[] }) => {
      const content = body.messages?.filter((m) => m.role === 'user').at(-1)?.content;
      return typeof content === 'string' ? content : '';
    };
    model = await startOpenAITestServer({
      handler: (request) => {
        const asked = lastUserText(request.body);
        // The first reply is slow, so the second job is taken by the other worker while it runs.
        return { text: ['Answer ', `to ${asked}.`], chunkDelayMs: asked === 'One' ? 1000 : 0 };
      },
    });
    newWorker();
    newWorker();
    const queue = newQueue();
    const first = await queue.enqueue('s5', 'One');
    const second = await queue.enqueue('s5', 'Two');
    const other = await queue.enqueue('s6', 'Elsewhere');
    await waitFor(() => model!.requests.length >= 2, 10_000);
    // While the first reply of s5 runs, s6's runs too; s5's second waits for its turn.
    expect(model.requests.map((r) => lastUserText(r.body)).sort()).toEqual(['Elsewhere', 'One']);
    const results = await Promise.all([first, second, other].map((job) => queue.result(job, 15_000)));
    expect(results.map((r) => r.finishReason)).toEqual(['completed', 'completed', 'completed']);
    expect((await store.load('s5'))!.state.context.map((m) => [m.role, textOfMsg(m)])).toEqual([
      ['user', 'One'],
      ['assistant', 'Answer to One.'],
      ['user', 'Two'],
      ['assistant', 'Answer to Two.'],
    ]);
    // Waiting for its turn used none of the job's attempts.
    expect((await queue.queue.getJob(second.id!))!.attemptsMade).toBe(1);
  });
});
