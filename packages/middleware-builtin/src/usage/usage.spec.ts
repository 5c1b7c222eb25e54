import { z } from 'zod';
import { Agent, defineTool } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer, type ServerTurn } from '@rxscope/core/testing/node';
import { closeTestServer, customValues, run, testServerModel } from '../__tests__/helpers.js';
import { type ModelCallUsage, type ReplyUsage, UsageMiddleware } from './index.js';
import { priceOf } from './prices.js';

/** A clock that only moves when the test moves it. */
const clock = () => {
  let t = 1000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};

describe('UsageMiddleware', () => {
  let server: OpenAITestServer | undefined;
  afterEach(async () => {
    if (server) await closeTestServer(server);
    server = undefined;
  });

  it('adds up tokens and cost per model call and per reply (cached and reasoning tokens priced apart) and times every phase', async () => {
    const time = clock();
    const turns: ServerTurn[] = [
      {
        toolCalls: [{ name: 'lookup', input: { q: 'x' } }],
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 40 },
      },
      { text: 'done', usage: { inputTokens: 150, outputTokens: 30, reasoningTokens: 10 } },
    ];
    // Each model call takes 100 ms of the test's clock, the tool 500 ms.
    server = await startOpenAITestServer({ handler: (_r, i) => (time.advance(100), turns[i]!) });
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks up',
      input: z.object({ q: z.string() }),
      readOnly: true,
      execute: () => (time.advance(500), 'found'),
    });
    const usage = new UsageMiddleware({
      prices: { 'gpt-test': { input: 1, output: 2, cacheRead: 0.5, reasoning: 4 } },
      currency: 'EUR',
      now: time.now,
    });
    const agent = new Agent({ name: 'a', model: testServerModel(server), tools: [lookup], middlewares: [usage] });

    const { events, end } = await run(agent, 'go');

    expect(end.finishReason).toBe('completed');
    const firstCost = (60 * 1 + 40 * 0.5 + 20 * 2) / 1e6;
    const secondCost = (150 * 1 + 20 * 2 + 10 * 4) / 1e6;
    const calls = customValues<ModelCallUsage>(events, 'usage.model_call');
    expect(calls).toEqual([
      {
        model: 'gpt-test',
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 40 },
        cost: firstCost,
        durationMs: 100,
      },
      {
        model: 'gpt-test',
        usage: { inputTokens: 150, outputTokens: 30, reasoningTokens: 10 },
        cost: secondCost,
        durationMs: 100,
      },
    ]);
    // Each model call's usage event follows its MODEL_CALL_END; the reply's comes right before REPLY_END.
    const types = events.map((e) => (e.type === 'CUSTOM' ? e.name : e.type));
    expect(types[types.indexOf('MODEL_CALL_END') + 1]).toBe('usage.model_call');
    expect(types.slice(-2)).toEqual(['usage.reply', 'REPLY_END']);

    const [report] = customValues<ReplyUsage>(events, 'usage.reply');
    expect(report).toMatchObject({
      replyId: end.replyId,
      agentName: 'a',
      currency: 'EUR',
      modelCalls: 2,
      inputTokens: 250,
      outputTokens: 50,
      cacheReadTokens: 40,
      reasoningTokens: 10,
      toolCalls: 1,
      durationMs: 700,
      timing: { modelMs: 200, actingMs: 500 },
      perTool: { lookup: { calls: 1, ms: 500 } },
      perModel: { 'gpt-test': { modelCalls: 2, inputTokens: 250, ms: 200 } },
      unpriced: [],
    });
    expect(report!.cost).toBeCloseTo(firstCost + secondCost, 12);
    expect(report!.timing.reasoningMs).toBe(200);
    expect(usage.lastReply(agent)).toEqual(report);
  });

  it('keeps session totals across replies in the agent state, readable after call() and restored from a snapshot', async () => {
    server = await startOpenAITestServer({
      handler: () => ({ text: 'ok', usage: { inputTokens: 10, outputTokens: 5 } }),
    });
    const usage = new UsageMiddleware({ prices: { 'gpt-*': { input: 2, output: 8 } } });
    const agent = new Agent({ name: 'a', model: testServerModel(server), middlewares: [usage] });
    await agent.call('one');
    await agent.call('two');

    const session = usage.session(agent)!;
    expect(session).toMatchObject({
      replies: 2,
      modelCalls: 2,
      inputTokens: 20,
      outputTokens: 10,
      currency: 'USD',
      unpriced: [],
    });
    expect(session.cost).toBeCloseTo((2 * (10 * 2 + 5 * 8)) / 1e6, 12);
    expect(session.perModel['gpt-test']).toMatchObject({ modelCalls: 2, inputTokens: 20 });

    const restored = new Agent({
      name: 'a',
      model: testServerModel(server),
      middlewares: [usage],
      state: agent.saveState(),
    });
    await restored.call('three');
    expect(usage.session(restored)).toMatchObject({ replies: 3, inputTokens: 30 });
  });

  it('counts a model without a price as 0 and names it', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'ok', usage: { inputTokens: 7, outputTokens: 3 } }] });
    const usage = new UsageMiddleware({ prices: { 'other-model': { input: 1, output: 1 } } });
    const agent = new Agent({ name: 'a', model: testServerModel(server), middlewares: [usage] });
    await agent.call('hi');
    expect(usage.lastReply(agent)).toMatchObject({ cost: 0, inputTokens: 7, unpriced: ['gpt-test'] });
  });

  it('keeps concurrent replies of agents sharing one instance apart', async () => {
    // The answer's usage depends on the question, so each reply has its own numbers.
    server = await startOpenAITestServer({
      chunkDelayMs: 5,
      handler: (req) => {
        const n = Number(/\d+/.exec(JSON.stringify(req.body.messages))![0]);
        return { text: `answer ${n}`, usage: { inputTokens: n, outputTokens: n * 2 } };
      },
    });
    const usage = new UsageMiddleware({ prices: { 'gpt-test': { input: 1, output: 1 } } });
    const agents = [11, 22, 33, 44].map((n) => ({
      n,
      agent: new Agent({ name: `a${n}`, model: testServerModel(server!), middlewares: [usage] }),
    }));
    const results = await Promise.all(agents.map(({ n, agent }) => run(agent, `question ${n}`)));
    results.forEach(({ events }, i) => {
      const n = agents[i]!.n;
      const [report] = customValues<ReplyUsage>(events, 'usage.reply');
      expect(report).toMatchObject({
        agentName: `a${n}`,
        modelCalls: 1,
        inputTokens: n,
        outputTokens: 2 * n,
        cost: (3 * n) / 1e6,
      });
      expect(usage.lastReply(agents[i]!.agent)).toEqual(report);
    });
  });

  it('refuses a bad price table at construction, naming the entry', () => {
    expect(() => new UsageMiddleware({ prices: { m: { input: -1, output: 1 } } })).toThrow(
      /prices\["m"\]\.input must be a number >= 0/,
    );
    expect(() => new UsageMiddleware({ prices: { m: { input: 1 } as never } })).toThrow(
      /prices\["m"\]\.output must be a number/,
    );
    expect(() => new UsageMiddleware({ prices: { m: { input: 1, output: 1, cached: 1 } as never } })).toThrow(
      /cached is not a price field/,
    );
  });

  it('prices a model by its exact name first, else by the longest matching prefix', () => {
    const table = {
      'gpt-4o*': { input: 1, output: 1 },
      'gpt-4o-mini*': { input: 2, output: 2 },
      'gpt-4o-mini-2024': { input: 3, output: 3 },
    };
    expect(priceOf(table, 'gpt-4o-mini-2024')!.input).toBe(3);
    expect(priceOf(table, 'gpt-4o-mini-2025')!.input).toBe(2);
    expect(priceOf(table, 'gpt-4o-2024')!.input).toBe(1);
    expect(priceOf(table, 'o3')).toBeUndefined();
  });
});
