import { Agent } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { startOpenAITestServer, type OpenAITestServer, type ServerTurn } from '@rxscope/core/testing/node';
import { closeTestServer, ofType, run, testServerModel, textOf } from '../__tests__/helpers.js';
import { RetryMiddleware, type RetryEventValue, type RetryOptions } from './index.js';

/** RetryMiddleware in front of the real OpenAIChatModel, against the OpenAI-compatible test server. */
describe('RetryMiddleware over HTTP (OpenAIChatModel + test server)', () => {
  let server: OpenAITestServer;

  const agentFor = (turns: ServerTurn[], options: RetryOptions = {}) => {
    server.enqueue(...turns);
    return new Agent({
      model: testServerModel(server),
      middlewares: [new RetryMiddleware({ initialDelayMs: 50, ...options })],
    });
  };

  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(() => closeTestServer(server));

  it('429 with Retry-After: 1 is retried after about one second', async () => {
    const agent = agentFor([{ fault: 'rate_limit', retryAfterSeconds: 1 }, { text: ['Hello', ' again'] }]);
    const { events, end } = await run(agent);
    expect(end.finishReason).toBe('completed');
    expect(textOf(events)).toBe('Hello again');
    expect(server.requests).toHaveLength(2);
    const waited = server.requests[1]!.receivedAt - server.requests[0]!.receivedAt;
    expect(waited).toBeGreaterThanOrEqual(990);
    expect(waited).toBeLessThan(1_800);
    expect(ofType(events, 'CUSTOM')[0]!.value).toMatchObject({
      retryAfterMs: 1_000,
      delayMs: 1_000,
      error: { status: 429, code: 'rate_limited' },
    } as Partial<RetryEventValue>);
    expect(ofType(events, 'MODEL_CALL_END').map((e) => e.finishReason)).toEqual(['error', 'stop']);
  });

  it('500 is retried, then the answer arrives', async () => {
    const agent = agentFor([{ fault: 'server_error' }, { fault: 'server_error' }, { text: 'finally' }]);
    const { events, end } = await run(agent);
    expect(end.finishReason).toBe('completed');
    expect(server.requests).toHaveLength(3);
    expect(textOf(events)).toBe('finally');
    expect(ofType(events, 'MODEL_CALL_END')[0]).toMatchObject({
      finishReason: 'error',
      error: { status: 500, retryable: true },
    });
  });

  it('401 is not retried', async () => {
    const agent = agentFor([{ fault: 'unauthorized' }, { text: 'never' }]);
    const { end } = await run(agent);
    expect(end).toMatchObject({ finishReason: 'error', error: { status: 401, code: 'unauthorized' } });
    expect(server.requests).toHaveLength(1);
    expect(server.remainingTurns()).toBe(1);
  });

  it('404 for an unknown model is not retried, and the message names the model', async () => {
    const agent = agentFor([{ fault: 'model_not_found' }, { text: 'never' }]);
    const { end } = await run(agent);
    expect(end).toMatchObject({ finishReason: 'error', error: { status: 404, code: 'not_found', retryable: false } });
    expect(end.error?.message).toContain('does not exist');
    expect(server.requests).toHaveLength(1);
  });

  it('a refused connection is retried (a server may be starting) and fails with its root cause', async () => {
    const port = server.port;
    await server.close();
    const agent = new Agent({
      model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: `http://127.0.0.1:${port}/v1` }),
      middlewares: [new RetryMiddleware({ initialDelayMs: 10, maxRetries: 2 })],
    });
    const { events, end } = await run(agent);
    expect(end).toMatchObject({ finishReason: 'error', error: { code: 'connection_error', retryable: true } });
    expect(end.error?.message).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect(ofType(events, 'MODEL_CALL_START')).toHaveLength(3);
    server = await startOpenAITestServer(); // for afterEach
  });

  it('a connection dropped after content is not retried by default: the partial text is shown once, the reply fails', async () => {
    const agent = agentFor([{ text: ['Once ', 'upon ', 'a ', 'time'], fault: 'drop_mid_stream' }, { text: 'never' }]);
    const { events, end } = await run(agent);
    expect(end).toMatchObject({ finishReason: 'error', error: { code: 'connection_error', retryable: true } });
    expect(server.requests).toHaveLength(1);
    expect(textOf(events)).toBe('Once ');
  });

  it('with buffer: true the dropped attempt is retried and only the complete answer is shown', async () => {
    const agent = agentFor(
      [
        { text: ['Once ', 'upon ', 'a ', 'time'], fault: 'drop_mid_stream' },
        { text: ['Once ', 'upon ', 'a ', 'time.'] },
      ],
      { buffer: true },
    );
    const { events, end } = await run(agent);
    expect(end.finishReason).toBe('completed');
    expect(server.requests).toHaveLength(2);
    expect(textOf(events)).toBe('Once upon a time.');
    expect(ofType(events, 'MODEL_CALL_END').map((e) => [e.finishReason, e.error?.code])).toEqual([
      ['error', 'connection_error'],
      ['stop', undefined],
    ]);
  });
});
