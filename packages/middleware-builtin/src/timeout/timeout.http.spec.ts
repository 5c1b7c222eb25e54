import { Agent, type Middleware } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer, type ServerTurn } from '@rxscope/core/testing/node';
import { closeTestServer, ofType, run, testServerModel, textOf } from '../__tests__/helpers.js';
import { RetryMiddleware } from '../retry/index.js';
import { TimeoutMiddleware } from './index.js';

/** TimeoutMiddleware (with RetryMiddleware outside it) against a stalling OpenAI-compatible server. */
describe('TimeoutMiddleware over HTTP (OpenAIChatModel + test server)', () => {
  let server: OpenAITestServer;

  const agentFor = (turns: ServerTurn[], middlewares: Middleware[]) => {
    server.enqueue(...turns);
    return new Agent({ model: testServerModel(server), middlewares });
  };

  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(() => closeTestServer(server));

  it('a stall before any content times out, the request is aborted, and the retry answers', async () => {
    const agent = agentFor(
      [{ fault: 'stall' }, { text: 'awake' }],
      [new RetryMiddleware({ initialDelayMs: 10 }), new TimeoutMiddleware({ idleMs: 1000 })],
    );
    const { events, end } = await run(agent);
    expect(end.finishReason).toBe('completed');
    expect(textOf(events)).toBe('awake');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.clientClosed).toBe(true);
    expect(ofType(events, 'MODEL_CALL_END')[0]).toMatchObject({
      finishReason: 'error',
      error: { code: 'timeout', retryable: true },
    });
  });

  it('a stall after content: not retried by default (the text was shown), retried with buffer: true', async () => {
    const stalled: ServerTurn = { text: ['Thinking', ' hard'], fault: 'stall' };
    const plain = agentFor(
      [stalled],
      [new RetryMiddleware({ initialDelayMs: 10 }), new TimeoutMiddleware({ idleMs: 1000 })],
    );
    const first = await run(plain);
    expect(first.end).toMatchObject({ finishReason: 'error', error: { code: 'timeout' } });
    expect(textOf(first.events)).toBe('Thinking');
    expect(server.requests).toHaveLength(1);

    const buffered = agentFor(
      [stalled, { text: 'Done thinking.' }],
      [new RetryMiddleware({ initialDelayMs: 10, buffer: true }), new TimeoutMiddleware({ idleMs: 1000 })],
    );
    const second = await run(buffered);
    expect(second.end.finishReason).toBe('completed');
    expect(textOf(second.events)).toBe('Done thinking.');
    expect(server.requests).toHaveLength(3);
  });

  it('replyMs ends a slow reply with REPLY_END {error: timeout} and closes the connection', async () => {
    // The reply would take 4 s; the 300 ms limit cuts it (generous bound: CI machines may be loaded).
    const agent = agentFor(
      [{ text: Array.from({ length: 80 }, (_, i) => `w${i} `), chunkDelayMs: 50 }],
      [new TimeoutMiddleware({ replyMs: 300 })],
    );
    const t0 = performance.now();
    const { events, end } = await run(agent);
    expect(performance.now() - t0).toBeLessThan(2_500);
    expect(end).toMatchObject({ finishReason: 'error', error: { code: 'timeout', name: 'ReplyTimeoutError' } });
    expect(textOf(events).length).toBeGreaterThan(0);
    await server.waitForConnections(0, 1000);
    expect(server.requests[0]!.clientClosed).toBe(true);
  });
});
