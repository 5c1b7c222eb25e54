import { lastValueFrom, tap, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../../agent/agent.js';
import type { AgentEvent, AgentEventOf } from '../../event/events.js';
import type { Middleware } from '../../middleware/middleware.js';
import { assertConsistentConversation, assertReplyGrammar } from '../../testing/grammar.js';
import { startOpenAITestServer, type OpenAITestServer, type ServerTurn } from '../../testing/node/index.js';
import { defineTool } from '../../tool/tool.js';
import { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather of a city',
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => Promise.resolve(`Sunny in ${city}`),
});

/**
 * Every fault of the test server, run through a real Agent over the real adapter: the reply
 * must end well formed (grammar), the conversation must stay valid, nothing may hang, and no
 * connection may stay open.
 */
describe('Agent over OpenAIChatModel: server faults', () => {
  let server: OpenAITestServer;
  let agent: Agent;

  const setup = (turns: ServerTurn[], options: Partial<OpenAIChatModelOptions> = {}) => {
    server.enqueue(...turns);
    const model = new OpenAIChatModel({
      model: 'gpt-test',
      apiKey: 'sk-test',
      baseURL: server.url,
      configuration: { logLevel: 'off' },
      ...options,
    });
    agent = new Agent({ model, tools: [getWeather] });
    return agent;
  };

  /** Runs one reply and checks what every reply must satisfy. */
  const reply = async (text: string): Promise<{ events: AgentEvent[]; end: AgentEventOf<'REPLY_END'> }> => {
    const events = await lastValueFrom(agent.reply(text).pipe(toArray()));
    const end = assertReplyGrammar(events);
    assertConsistentConversation(agent.context);
    return { events, end };
  };

  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(async () => {
    try {
      await server.waitForConnections(0, 1000); // nothing left open by the test itself
    } finally {
      await server.close();
    }
    expect(server.openConnections({ includeUnused: true })).toBe(0);
  });

  it.each<[string, ServerTurn, Record<string, unknown>]>([
    [
      'rate_limit',
      { fault: 'rate_limit', retryAfterSeconds: 7 },
      { status: 429, retryable: true, code: 'rate_limited', retryAfterMs: 7000 },
    ],
    ['server_error', { fault: 'server_error' }, { status: 500, retryable: true, code: 'server_error' }],
    ['unauthorized', { fault: 'unauthorized' }, { status: 401, retryable: false, code: 'unauthorized' }],
  ])(
    '%s: the reply ends with REPLY_END {finishReason: error} carrying the HTTP status',
    async (_name, turn, expected) => {
      setup([turn]);
      const { end, events } = await reply('hi');
      expect(end.finishReason).toBe('error');
      expect(end.error).toMatchObject({ name: 'ModelError', ...expected });
      expect(events.find((e) => e.type === 'MODEL_CALL_END')).toMatchObject({ finishReason: 'error', error: expected });
      expect(server.requests).toHaveLength(1); // no hidden retries
    },
  );

  it('the HTTP error is also what call() rejects with', async () => {
    setup([{ fault: 'unauthorized' }]);
    await expect(agent.call('hi')).rejects.toMatchObject({ name: 'AgentError' });
  });

  it.each([true, false])(
    'drop_mid_stream: partial text is closed, the reply ends with a retryable connection error (streaming: %s)',
    async (streaming) => {
      setup([{ text: ['Once ', 'upon ', 'a ', 'time'], fault: 'drop_mid_stream' }], { streaming });
      const { end } = await reply('tell a story');
      expect(end.finishReason).toBe('error');
      expect(end.error).toMatchObject({ retryable: true, code: 'connection_error' });
      expect(end.error!.status).toBeUndefined();
    },
  );

  it('drop_mid_stream during a tool call: the half-streamed call gets a synthesised result', async () => {
    setup([
      { toolCalls: [{ name: 'get_weather', input: { city: 'Paris' }, id: 'call_cut' }], fault: 'drop_mid_stream' },
    ]);
    const { end, events } = await reply('weather?');
    expect(end.error).toMatchObject({ code: 'connection_error' });
    expect(events.some((e) => e.type === 'TOOL_CALL_START' && e.toolCallId === 'call_cut')).toBe(true);
    const result = events.find((e): e is AgentEventOf<'TOOL_RESULT_END'> => e.type === 'TOOL_RESULT_END');
    expect(result).toMatchObject({ toolCallId: 'call_cut', status: 'interrupted' });
  });

  it.each<[string, ServerTurn, string]>([
    ['malformed_sse', { text: 'x', fault: 'malformed_sse' }, 'malformed_response'],
    ['empty_choices', { text: 'x', fault: 'empty_choices' }, 'empty_response'],
  ])('%s: the reply ends with a clear retryable ModelError', async (_name, turn, code) => {
    setup([turn]);
    const { end } = await reply('hi');
    expect(end.finishReason).toBe('error');
    expect(end.error).toMatchObject({ name: 'ModelError', retryable: true, code });
  });

  it('malformed_tool_json: the model is handed an error result naming the problem, and the conversation continues', async () => {
    setup([
      { toolCalls: [{ name: 'get_weather', input: { city: 'Paris' }, id: 'call_bad' }], fault: 'malformed_tool_json' },
      { text: 'Sorry, let me answer without the tool.' },
    ]);
    const { end, events } = await reply('weather in Paris?');
    expect(end.finishReason).toBe('completed');
    expect(events.find((e) => e.type === 'TOOL_RESULT_END')).toMatchObject({ toolCallId: 'call_bad', status: 'error' });
    const toolMessage = server.requests[1]!.body.messages!.find((m) => m.role === 'tool');
    expect(toolMessage).toMatchObject({ tool_call_id: 'call_bad' });
    expect(toolMessage!.content).toContain('not valid JSON');
    // The broken call went back to the model as it was sent, paired with its result.
    const call = server.requests[1]!.body.messages!.find((m) => m.tool_calls)!.tool_calls![0]!;
    expect(call.id).toBe('call_bad');
    expect(call.function.arguments).toContain('"unterminated"');
  });

  it('unknown_tool: the model is told which tools exist, and the conversation continues', async () => {
    setup([
      { fault: 'unknown_tool' },
      { toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }] },
      { text: 'Sunny in Oslo.' },
    ]);
    const { end, events } = await reply('weather in Oslo?');
    expect(end.finishReason).toBe('completed');
    const results = events.filter((e): e is AgentEventOf<'TOOL_RESULT_END'> => e.type === 'TOOL_RESULT_END');
    expect(results.map((r) => r.status)).toEqual(['error', 'success']);
    const told = server.requests[1]!.body.messages!.find((m) => m.role === 'tool')!.content as string;
    expect(told).toContain('Unknown tool "nonexistent_tool"');
    expect(told).toContain('get_weather');
    expect(server.requests).toHaveLength(3);
  });

  it('stall: the consumer unsubscribing aborts the request, the socket closes, and the agent stays usable', async () => {
    setup([{ text: ['Thinking', ' hard'], fault: 'stall' }, { text: 'Back again.' }]);
    const events: AgentEvent[] = [];
    await new Promise<void>((resolve, reject) => {
      const sub = agent.reply('hi').subscribe({
        next: (e) => {
          events.push(e);
          if (e.type === 'TEXT_BLOCK_DELTA') {
            sub.unsubscribe();
            resolve();
          }
        },
        error: reject,
        complete: () => reject(new Error('the stalled reply completed instead of waiting')),
      });
    });
    expect(events.filter((e) => e.type === 'TEXT_BLOCK_DELTA').map((e) => (e as { delta: string }).delta)).toEqual([
      'Thinking',
    ]);
    await server.waitForConnections(0, 1000);
    expect(server.requests[0]!.clientClosed).toBe(true);
    expect(agent.busy).toBe(false);
    assertConsistentConversation(agent.context);
    const { end } = await reply('are you there?');
    expect(end.finishReason).toBe('completed');
  });

  it('stall: a middleware aborting the signal it passed to the model call aborts the request, and the socket closes', async () => {
    setup([{ text: ['Thinking', ' hard'], fault: 'stall' }, { text: 'Back again.' }]);
    const ownSignal: Middleware = {
      onModelCall: (_agent, _ctx, input, next) => {
        const controller = new AbortController();
        return next({ ...input, signal: controller.signal }).pipe(
          tap((e) => {
            if (e.type === 'TEXT_BLOCK_DELTA') controller.abort(new Error('the middleware gave up'));
          }),
        );
      },
    };
    agent = new Agent({ model: agent.model, tools: [getWeather], middlewares: [ownSignal] });
    const { end, events } = await reply('hi');
    expect(end.finishReason).toBe('error');
    expect(events.find((e) => e.type === 'MODEL_CALL_END')).toMatchObject({
      finishReason: 'error',
      error: { code: 'cancelled' },
    });
    await server.waitForConnections(0, 1000);
    expect(server.requests[0]!.clientClosed).toBe(true);
  });

  it('stall: idleTimeoutMs aborts the request and the reply ends with a retryable timeout', async () => {
    setup([{ text: ['Thinking'], fault: 'stall' }], { idleTimeoutMs: 150 });
    const t0 = performance.now();
    const { end } = await reply('hi');
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(end.finishReason).toBe('error');
    expect(end.error).toMatchObject({ retryable: true, code: 'timeout' });
    await server.waitForConnections(0, 1000);
    expect(server.requests[0]!.clientClosed).toBe(true);
  });

  it('a healthy tool round trip completes with usage summed over both calls', async () => {
    setup([
      { toolCalls: [{ name: 'get_weather', input: { city: 'Rome' } }], usage: { inputTokens: 10, outputTokens: 5 } },
      { text: 'Sunny in Rome.', usage: { inputTokens: 20, outputTokens: 4, cacheReadTokens: 8 } },
    ]);
    const { end } = await reply('weather in Rome?');
    expect(end).toMatchObject({
      finishReason: 'completed',
      usage: { inputTokens: 30, outputTokens: 9, cacheReadTokens: 8 },
    });
    expect(server.requests[1]!.body.messages!.find((m) => m.role === 'tool')!.content).toBe('Sunny in Rome');
  });
});
