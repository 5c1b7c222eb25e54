import { defer, lastValueFrom, toArray } from 'rxjs';
import { Agent, type AgentEvent, type Middleware } from '@rxscope/core';
import { assertReplyGrammar } from '@rxscope/core/testing';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, testServerModel } from '../__tests__/helpers.js';
import { RateLimitMiddleware } from './index.js';

/** One RateLimitMiddleware shared by several agents that call the same OpenAI-compatible server. */
describe('RateLimitMiddleware over HTTP (OpenAIChatModel + test server)', () => {
  let server: OpenAITestServer;
  const model = () => testServerModel(server);
  const reply = (agent: Agent, text: string) => lastValueFrom(agent.reply(text).pipe(toArray()));

  beforeEach(async () => {
    // Every answer streams 4 chunks 40 ms apart: a call lasts about 200 ms.
    server = await startOpenAITestServer({
      handler: () => ({ text: ['one ', 'two ', 'three ', 'four'] }),
      chunkDelayMs: 40,
    });
  });
  afterEach(() => closeTestServer(server));

  it('two agents sharing one instance with maxConcurrent 1: the second request is sent only after the first answer', async () => {
    const gate = new RateLimitMiddleware({ maxConcurrent: 1 });
    const a = new Agent({ name: 'a', model: model(), middlewares: [gate] });
    const b = new Agent({ name: 'b', model: model(), middlewares: [gate] });
    const [ea, eb] = await Promise.all([reply(a, 'from a'), reply(b, 'from b')]);
    expect(assertReplyGrammar(ea).finishReason).toBe('completed');
    expect(assertReplyGrammar(eb).finishReason).toBe('completed');
    expect(server.requests).toHaveLength(2);
    const gap = server.requests[1]!.receivedAt - server.requests[0]!.receivedAt;
    expect(gap).toBeGreaterThanOrEqual(150); // the first answer took ~200 ms to stream
    const waited = eb.find((e) => e.type === 'CUSTOM' && e.name === 'rate_limit');
    expect(waited).toBeDefined();
  });

  it('minIntervalMs spaces the requests of two agents', async () => {
    const gate = new RateLimitMiddleware({ minIntervalMs: 300 });
    // When the gate lets each call through (the request itself may take a varying time to arrive).
    const started: number[] = [];
    const probe: Middleware = {
      onModelCall: (_a, _c, input, next) => defer(() => (started.push(performance.now()), next(input))),
    };
    const a = new Agent({ name: 'a', model: model(), middlewares: [gate, probe] });
    const b = new Agent({ name: 'b', model: model(), middlewares: [gate, probe] });
    await Promise.all([reply(a, 'from a'), reply(b, 'from b')]);
    expect(started).toHaveLength(2);
    expect(started[1]! - started[0]!).toBeGreaterThanOrEqual(295);
    expect(server.requests[1]!.receivedAt - server.requests[0]!.receivedAt).toBeGreaterThanOrEqual(150);
  });

  it('a waiter cancelled while queued never reaches the server and gives its place to the next one', async () => {
    const gate = new RateLimitMiddleware({ maxConcurrent: 1 });
    const agents = ['first', 'second', 'third'].map((name) => new Agent({ name, model: model(), middlewares: [gate] }));
    const first = reply(agents[0]!, 'first');
    const secondEvents: AgentEvent[] = [];
    const second = agents[1]!.reply('second').subscribe({ next: (e) => secondEvents.push(e) });
    const third = reply(agents[2]!, 'third');
    expect(gate.waiting).toBe(2);
    second.unsubscribe();
    expect(gate.waiting).toBe(1);
    const [e1, e3] = await Promise.all([first, third]);
    expect([assertReplyGrammar(e1).finishReason, assertReplyGrammar(e3).finishReason]).toEqual([
      'completed',
      'completed',
    ]);
    const asked = server.requests.map((r) => {
      const last = r.body.messages!.at(-1)!;
      return typeof last.content === 'string' ? last.content : '';
    });
    expect(asked).toEqual(['first', 'third']);
    expect([gate.active, gate.waiting]).toEqual([0, 0]);
  });
});
