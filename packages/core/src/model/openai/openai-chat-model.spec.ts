import { lastValueFrom, toArray } from 'rxjs';
import type { ModelEvent } from '../../event/events.js';
import type { Msg } from '../../message/blocks.js';
import { createMsg } from '../../message/msg.js';
import { startOpenAITestServer, type OpenAITestServer, type ServerTurn } from '../../testing/node/index.js';
import type { ModelRequest, ToolChoice, ToolSchema } from '../chat-model.js';
import { ModelError } from '../model-error.js';
import { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';

const weather: ToolSchema = {
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const time: ToolSchema = {
  name: 'get_time',
  description: 'Current time',
  parameters: { type: 'object', properties: {} },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages: [createMsg('user', 'hi')],
    tools: [],
    toolChoice: 'auto',
    options: {},
    signal: new AbortController().signal,
    ...overrides,
  };
}

const collect = (model: OpenAIChatModel, req: ModelRequest = request()): Promise<ModelEvent[]> =>
  lastValueFrom(model.stream(req).pipe(toArray()));

const failure = (model: OpenAIChatModel, req: ModelRequest = request()): Promise<ModelError> =>
  collect(model, req).then(
    () => {
      throw new Error('expected the model call to fail');
    },
    (e: unknown) => e as ModelError,
  );

/** Events with generated ids replaced, to compare runs. */
function shape(events: readonly ModelEvent[]): unknown[] {
  const ids = new Map<string, string>();
  const stable = (id: string) => {
    if (!ids.has(id)) ids.set(id, `#${ids.size}`);
    return ids.get(id)!;
  };
  // The test server's response ids are random: keep only their form.
  return events.map((e) =>
    'blockId' in e
      ? { ...e, blockId: stable(e.blockId) }
      : e.type === 'MODEL_CALL_END' && e.responseId
        ? { ...e, responseId: e.responseId.replace(/^(chatcmpl-).*/, '$1*') }
        : e,
  );
}

describe('OpenAIChatModel against the OpenAI-compatible test server', () => {
  let server: OpenAITestServer;
  const model = (turns: ServerTurn[], options: Partial<OpenAIChatModelOptions> = {}) => {
    server.enqueue(...turns);
    // logLevel off: the openai SDK logs the malformed SSE line of that fault to the console.
    return new OpenAIChatModel({
      model: 'gpt-test',
      apiKey: 'sk-test',
      baseURL: server.url,
      configuration: { logLevel: 'off' },
      ...options,
    });
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
  });

  it('streams text deltas in one TEXT block and ends with one MODEL_CALL_END carrying usage and finish reason', async () => {
    const events = await collect(model([{ text: ['Hel', 'lo', '!'], usage: { inputTokens: 12, outputTokens: 3 } }]));
    expect(shape(events)).toEqual([
      { type: 'TEXT_BLOCK_START', blockId: '#0' },
      { type: 'TEXT_BLOCK_DELTA', blockId: '#0', delta: 'Hel' },
      { type: 'TEXT_BLOCK_DELTA', blockId: '#0', delta: 'lo' },
      { type: 'TEXT_BLOCK_DELTA', blockId: '#0', delta: '!' },
      { type: 'TEXT_BLOCK_END', blockId: '#0' },
      {
        type: 'MODEL_CALL_END',
        model: 'gpt-test',
        responseModel: 'gpt-test',
        responseId: 'chatcmpl-*',
        finishReason: 'stop',
        usage: { inputTokens: 12, outputTokens: 3 },
      },
    ]);
  });

  it('streams reasoning_content in a THINKING block before the text, and reports cache and reasoning tokens', async () => {
    const events = await collect(
      model([
        {
          thinking: ['First, ', 'think.'],
          text: 'Done.',
          usage: { inputTokens: 20, outputTokens: 9, cacheReadTokens: 16, reasoningTokens: 5 },
        },
      ]),
    );
    expect(shape(events).map((e) => (e as ModelEvent).type)).toEqual([
      'THINKING_BLOCK_START',
      'THINKING_BLOCK_DELTA',
      'THINKING_BLOCK_DELTA',
      'THINKING_BLOCK_END',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'MODEL_CALL_END',
    ]);
    const thinking = events.filter((e) => e.type === 'THINKING_BLOCK_DELTA').map((e) => e.delta);
    expect(thinking).toEqual(['First, ', 'think.']);
    expect(events.at(-1)).toMatchObject({
      usage: { inputTokens: 20, outputTokens: 9, cacheReadTokens: 16, reasoningTokens: 5 },
    });
  });

  it('streams several tool calls, each its own block with the server id, arguments streamed as deltas', async () => {
    const events = await collect(
      model([
        {
          text: 'Checking.',
          toolCalls: [
            { name: 'get_weather', input: { city: 'Paris' }, id: 'call_w' },
            { name: 'get_time', input: {}, id: 'call_t' },
            { name: 'get_weather', input: { city: 'Oslo' }, id: 'call_w2' },
          ],
        },
      ]),
      request({ tools: [weather, time] }),
    );
    const starts = events.filter((e) => e.type === 'TOOL_CALL_START');
    expect(starts.map((s) => [s.toolCallId, s.name])).toEqual([
      ['call_w', 'get_weather'],
      ['call_t', 'get_time'],
      ['call_w2', 'get_weather'],
    ]);
    expect(new Set(starts.map((s) => s.blockId)).size).toBe(3);
    const argsOf = (blockId: string) =>
      events
        .filter((e) => e.type === 'TOOL_CALL_DELTA' && e.blockId === blockId)
        .map((e) => (e as { delta: string }).delta);
    expect(argsOf(starts[0]!.blockId).length).toBeGreaterThan(1);
    expect(JSON.parse(argsOf(starts[0]!.blockId).join(''))).toEqual({ city: 'Paris' });
    expect(JSON.parse(argsOf(starts[1]!.blockId).join(''))).toEqual({});
    expect(JSON.parse(argsOf(starts[2]!.blockId).join(''))).toEqual({ city: 'Oslo' });
    // Blocks close in order: each block ends before the next one starts.
    let open: string | undefined;
    for (const e of events) {
      if (e.type.endsWith('_START')) {
        expect(open).toBeUndefined();
        open = (e as { blockId: string }).blockId;
      } else if (e.type.endsWith('_END') && e.type !== 'MODEL_CALL_END') {
        expect((e as { blockId: string }).blockId).toBe(open);
        open = undefined;
      }
    }
    expect(events.filter((e) => e.type === 'MODEL_CALL_END')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'MODEL_CALL_END', finishReason: 'tool_calls' });
  });

  it('asks for usage in streams and sends the model, messages and function tools', async () => {
    await collect(
      model([{ text: 'ok' }]),
      request({ tools: [weather], messages: [createMsg('system', 'Be brief.'), createMsg('user', 'hi')] }),
    );
    const { body, headers } = server.requests[0]!;
    expect(headers.authorization).toBe('Bearer sk-test');
    expect(body).toMatchObject({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Current weather of a city', parameters: weather.parameters },
        },
      ],
      tool_choice: 'auto',
    });
  });

  it.each<[ToolChoice, unknown]>([
    ['auto', 'auto'],
    ['none', 'none'],
    ['required', 'required'],
    [{ name: 'get_time' }, { type: 'function', function: { name: 'get_time' } }],
  ])('maps toolChoice %j to the wire', async (toolChoice, wire) => {
    await collect(model([{ text: 'ok' }]), request({ tools: [weather, time], toolChoice }));
    expect(server.requests[0]!.body.tool_choice).toEqual(wire);
  });

  it('sends neither tools nor tool_choice when there are no tools', async () => {
    await collect(model([{ text: 'ok' }]), request({ toolChoice: 'required' }));
    expect(server.requests[0]!.body).not.toHaveProperty('tools');
    expect(server.requests[0]!.body).not.toHaveProperty('tool_choice');
  });

  it('sends sampling options from the constructor, overridden per call, plus extra options as they are', async () => {
    const m = model([{ text: 'a' }, { text: 'b' }], {
      temperature: 0.1,
      topP: 0.5,
      maxTokens: 100,
      stop: ['END'],
      seed: 7,
      modelKwargs: { user: 'u1' },
    });
    await collect(m);
    expect(server.requests[0]!.body).toMatchObject({
      temperature: 0.1,
      top_p: 0.5,
      max_tokens: 100,
      stop: ['END'],
      seed: 7,
      user: 'u1',
    });
    await collect(
      m,
      request({
        options: {
          temperature: 0.9,
          topP: 1,
          maxTokens: 5,
          stop: ['X'],
          seed: 3,
          parallelToolCalls: false,
          reasoning_effort: 'low',
        },
      }),
    );
    expect(server.requests[1]!.body).toMatchObject({
      temperature: 0.9,
      top_p: 1,
      max_tokens: 5,
      stop: ['X'],
      seed: 3,
      parallel_tool_calls: false,
      reasoning_effort: 'low',
    });
  });

  it('sends maxTokens as max_completion_tokens and system as developer to OpenAI reasoning models, as ChatOpenAI does', async () => {
    const m = model([{ text: 'a' }, { text: 'b' }], { model: 'o3-mini' });
    await collect(m, request({ messages: [createMsg('system', 'Be brief.'), createMsg('user', 'hi')] }));
    expect(server.requests[0]!.body).not.toHaveProperty('max_tokens');
    expect(server.requests[0]!.body.messages![0]).toEqual({ role: 'developer', content: 'Be brief.' });
    await collect(m, request({ options: { maxTokens: 64 } }));
    expect(server.requests[1]!.body).toMatchObject({ model: 'o3-mini', max_completion_tokens: 64 });
    expect(server.requests[1]!.body).not.toHaveProperty('max_tokens');
  });

  it('passes maxRetries through to ChatOpenAI when set', async () => {
    const events = await collect(
      model([{ fault: 'server_error', retryAfterSeconds: 0 }, { text: 'second try' }], { maxRetries: 1 }),
    );
    expect(server.requests).toHaveLength(2);
    expect(events.find((e) => e.type === 'TEXT_BLOCK_DELTA')).toMatchObject({ delta: 'second try' });
  });

  it('non-streaming mode sends stream: false and yields the same events', async () => {
    const turn: ServerTurn = {
      thinking: 'Hmm.',
      text: 'Let me check.',
      toolCalls: [
        { name: 'get_weather', input: { city: 'Rome' }, id: 'c1' },
        { name: 'get_time', input: {}, id: 'c2' },
      ],
      usage: { inputTokens: 30, outputTokens: 12, cacheReadTokens: 0, reasoningTokens: 3 },
    };
    const merge = (events: readonly ModelEvent[]) => {
      // Streaming splits deltas; compare the content of each block.
      const out: Record<string, unknown>[] = [];
      for (const e of shape(events) as (ModelEvent & { delta?: string })[]) {
        const last = out[out.length - 1];
        if (e.type.endsWith('_DELTA') && last && last['type'] === e.type)
          last['delta'] = `${last['delta'] as string}${e.delta!}`;
        else out.push({ ...e });
      }
      return out;
    };
    const streamed = await collect(model([turn]), request({ tools: [weather, time] }));
    const whole = await collect(model([turn], { streaming: false }), request({ tools: [weather, time] }));
    expect(server.requests[1]!.body.stream).toBe(false);
    expect(server.requests[1]!.body).not.toHaveProperty('stream_options');
    expect(merge(whole)).toEqual(merge(streamed));
    expect(whole.at(-1)).toMatchObject({
      usage: { inputTokens: 30, outputTokens: 12, cacheReadTokens: 0, reasoningTokens: 3 },
    });
  });

  it('unsubscribing mid-stream aborts the HTTP request: the server sees the socket close', async () => {
    const m = model([{ text: Array.from({ length: 50 }, (_, i) => `w${i} `), chunkDelayMs: 20 }]);
    const events: ModelEvent[] = [];
    await new Promise<void>((resolve, reject) => {
      const sub = m.stream(request()).subscribe({
        next: (e) => {
          events.push(e);
          if (events.filter((x) => x.type === 'TEXT_BLOCK_DELTA').length === 2) {
            sub.unsubscribe();
            resolve();
          }
        },
        error: reject,
        complete: () => reject(new Error('completed before the unsubscribe')),
      });
    });
    await server.waitForConnections(0, 1000);
    expect(server.requests[0]!.clientClosed).toBe(true);
    expect(server.requests[0]!.completed).toBe(false);
    const seen = events.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(events.length).toBe(seen);
  });

  it('aborting the request signal fails the call with a cancelled ModelError and closes the socket', async () => {
    const controller = new AbortController();
    const m = model([{ text: ['a', 'b', 'c', 'd'], chunkDelayMs: 40 }]);
    const err = await new Promise<ModelError>((resolve, reject) => {
      m.stream(request({ signal: controller.signal })).subscribe({
        next: (e) => {
          if (e.type === 'TEXT_BLOCK_DELTA') controller.abort(); // mid-stream, from outside
        },
        error: (e: unknown) => resolve(e as ModelError),
        complete: () => reject(new Error('completed despite the abort')),
      });
    });
    expect(err).toBeInstanceOf(ModelError);
    expect(err.code).toBe('cancelled');
    expect(err.retryable).toBe(false);
    await server.waitForConnections(0, 1000);
    expect(server.requests[0]!.clientClosed).toBe(true);
  });

  it('does not retry on its own: maxRetries defaults to 0', async () => {
    const err = await failure(model([{ fault: 'server_error' }, { text: 'never' }]));
    expect(err.status).toBe(500);
    expect(server.requests).toHaveLength(1);
  });

  it('converts an agent conversation to the wire: assistant runs, tool messages, hints, images', async () => {
    const png = 'iVBORw0KGgo=';
    const reply: Msg = {
      id: 'm2',
      role: 'assistant',
      name: 'assistant',
      createdAt: 0,
      content: [
        { type: 'thinking', thinking: 'Need weather.' },
        { type: 'text', text: 'Checking both.' },
        { type: 'tool_call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool_call', id: 'c2', name: 'get_time', arguments: '' },
        {
          type: 'tool_result',
          toolCallId: 'c1',
          name: 'get_weather',
          status: 'success',
          output: [{ type: 'text', text: 'Sunny' }],
        },
        {
          type: 'tool_result',
          toolCallId: 'c2',
          name: 'get_time',
          status: 'error',
          output: [
            { type: 'text', text: 'chart: ' },
            { type: 'data', mediaType: 'image/png', data: png },
          ],
        },
        { type: 'hint', text: 'Wrap up now.' },
        { type: 'text', text: 'Paris is sunny.' },
      ],
    };
    const messages = [
      createMsg('system', 'You are terse.'),
      createMsg('user', [
        { type: 'text', text: 'What is this?' },
        { type: 'data', mediaType: 'image/jpeg', url: 'https://example.com/cat.jpg' },
      ]),
      reply,
      createMsg('user', 'thanks'),
    ];
    await collect(model([{ text: 'ok' }, { text: 'ok' }]), request({ messages, tools: [weather, time] }));
    expect(server.requests[0]!.body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'c2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Sunny' },
      { role: 'tool', tool_call_id: 'c2', content: 'chart: [image/png attached below]' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] },
      { role: 'user', content: 'Wrap up now.' },
      { role: 'assistant', content: 'Paris is sunny.' },
      { role: 'user', content: 'thanks' },
    ]);

    // sendReasoning echoes the thinking as reasoning_content.
    await collect(
      new OpenAIChatModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, sendReasoning: true }),
      request({ messages: [reply], tools: [weather, time] }),
    );
    expect(server.requests[1]!.body.messages![0]).toMatchObject({
      role: 'assistant',
      reasoning_content: 'Need weather.',
    });
  });

  describe('errors are typed ModelErrors', () => {
    it('429 carries status, retryable and Retry-After', async () => {
      const err = await failure(model([{ fault: 'rate_limit', retryAfterSeconds: 2 }]));
      expect(err).toBeInstanceOf(ModelError);
      expect(err).toMatchObject({ status: 429, retryable: true, retryAfterMs: 2000, code: 'rate_limited' });
      expect(err.message).toContain('Rate limit reached');
      expect(err.message).not.toContain('Troubleshooting URL');
    });

    it('401 is not retryable', async () => {
      const err = await failure(model([{ fault: 'unauthorized' }]));
      expect(err).toMatchObject({ status: 401, retryable: false, code: 'unauthorized' });
    });

    it('500 is retryable', async () => {
      const err = await failure(model([{ fault: 'server_error' }], { streaming: false }));
      expect(err).toMatchObject({ status: 500, retryable: true, code: 'server_error' });
    });

    it.each([true, false])(
      'a connection dropped mid-response is a retryable connection error (streaming: %s)',
      async (streaming) => {
        const err = await failure(model([{ text: ['a', 'b', 'c'], fault: 'drop_mid_stream' }], { streaming }));
        expect(err).toMatchObject({ retryable: true, code: 'connection_error' });
        expect(err.status).toBeUndefined();
      },
    );

    it.each([true, false])('a malformed response is a malformed_response error (streaming: %s)', async (streaming) => {
      const err = await failure(model([{ text: 'x', fault: 'malformed_sse' }], { streaming }));
      expect(err).toMatchObject({ retryable: true, code: 'malformed_response' });
    });

    it.each([true, false])('empty choices are an empty_response error (streaming: %s)', async (streaming) => {
      const err = await failure(model([{ text: 'x', fault: 'empty_choices' }], { streaming }));
      expect(err).toMatchObject({ retryable: true, code: 'empty_response' });
    });

    it.each([true, false])(
      'a stalled response fails after idleTimeoutMs and closes the socket (streaming: %s)',
      async (streaming) => {
        const t0 = performance.now();
        const err = await failure(model([{ text: ['a', 'b'], fault: 'stall' }], { streaming, idleTimeoutMs: 150 }));
        expect(err).toMatchObject({ retryable: true, code: 'timeout' });
        expect(performance.now() - t0).toBeLessThan(1500);
        await server.waitForConnections(0, 1000);
        expect(server.requests[0]!.clientClosed).toBe(true);
      },
    );

    it('timeout bounds the wait for the response headers: a retryable timeout', async () => {
      const hanging = await startOpenAITestServer({ handler: () => new Promise(() => undefined) });
      try {
        const m = new OpenAIChatModel({ model: 'gpt-test', apiKey: 'k', baseURL: hanging.url, timeout: 150 });
        const t0 = performance.now();
        const err = await failure(m);
        expect(err).toMatchObject({ retryable: true, code: 'timeout' });
        expect(performance.now() - t0).toBeLessThan(1500);
      } finally {
        await hanging.close();
      }
    });

    it('a refused connection is a retryable connection error', async () => {
      const closed = await startOpenAITestServer();
      await closed.close();
      const m = new OpenAIChatModel({ model: 'gpt-test', apiKey: 'k', baseURL: closed.url });
      const err = await failure(m);
      expect(err).toMatchObject({ retryable: true, code: 'connection_error' });
    });
  });
});
