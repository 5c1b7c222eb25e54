import { startOpenAITestServer, type OpenAITestServer } from './index.js';

/** POSTs a chat completion request and returns the response. */
function post(server: OpenAITestServer, body: Record<string, unknown>, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], ...body }),
    ...init,
  });
}

/** The `data:` payloads of an SSE body, in order. */
function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((e) => e.trim())
    .map((e) => {
      expect(e.startsWith('data: ')).toBe(true);
      return e.slice('data: '.length);
    });
}

interface ToolCallDelta {
  index: number;
  id?: string;
  function: { name?: string; arguments?: string };
}
interface Chunk {
  object: string;
  model: string;
  choices: {
    index: number;
    delta: { role?: string; content?: string; reasoning_content?: string; tool_calls?: ToolCallDelta[] };
    finish_reason: string | null;
  }[];
  usage?: Record<string, unknown> | null;
}
interface Completion {
  object: string;
  model: string;
  choices: {
    index: number;
    finish_reason: string;
    message: {
      role: string;
      content: string | null;
      tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    };
  }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}
interface ErrorBody {
  error: { message: string; type: string; code: string | null };
}
const json = async <T = Completion>(res: Response): Promise<T> => (await res.json()) as T;

describe('startOpenAITestServer', () => {
  let server: OpenAITestServer | undefined;
  afterEach(async () => {
    await server?.close();
    expect(server?.openConnections() ?? 0).toBe(0);
    server = undefined;
  });

  it('listens on 127.0.0.1 on a random port and serves a /v1 base URL', async () => {
    server = await startOpenAITestServer({ script: [] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server.port).toBeGreaterThan(0);
    const models = await json<{ data: { id: string }[] }>(await fetch(`${server.url}/models`));
    expect(models.data[0]!.id).toBe('test-model');
  });

  it('streams thinking (as reasoning_content), text and tool calls as chat.completion.chunk events, then usage and [DONE]', async () => {
    server = await startOpenAITestServer({
      script: [
        {
          thinking: ['Let me ', 'think.'],
          text: ['Hel', 'lo'],
          toolCalls: [
            { name: 'add', input: { a: 2, b: 3 }, id: 'call_add' },
            { name: 'echo', arguments: '{"text":"hello world"}' },
          ],
          usage: { inputTokens: 11, outputTokens: 7, cacheReadTokens: 4, reasoningTokens: 2 },
        },
      ],
    });
    const res = await post(server, { stream: true, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const data = sseData(await res.text());
    expect(data[data.length - 1]).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Chunk);
    for (const c of chunks) {
      expect(c.object).toBe('chat.completion.chunk');
      expect(c.model).toBe('gpt-test');
    }
    const usageChunk = chunks[chunks.length - 1]!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual({
      prompt_tokens: 11,
      completion_tokens: 7,
      total_tokens: 18,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 2 },
    });
    const content = chunks.slice(0, -1);
    for (const c of content) expect(c.usage).toBeNull();
    expect(content[0]!.choices[0]!.delta.role).toBe('assistant');
    const deltas = content.map((c) => c.choices[0]!.delta);
    expect(deltas.filter((d) => d.reasoning_content).map((d) => d.reasoning_content)).toEqual(['Let me ', 'think.']);
    expect(deltas.filter((d) => d.content).map((d) => d.content)).toEqual(['Hel', 'lo']);

    const calls = new Map<number, { id?: string; name?: string; args: string; pieces: number }>();
    for (const d of deltas) {
      for (const tc of d.tool_calls ?? []) {
        const call = calls.get(tc.index) ?? { args: '', pieces: 0 };
        if (tc.id) call.id = tc.id;
        if (tc.function.name) call.name = tc.function.name;
        if (tc.function.arguments) {
          call.args += tc.function.arguments;
          call.pieces++;
        }
        calls.set(tc.index, call);
      }
    }
    expect(calls.get(0)).toMatchObject({ id: 'call_add', name: 'add' });
    expect(JSON.parse(calls.get(0)!.args)).toEqual({ a: 2, b: 3 });
    expect(calls.get(1)!.id).toMatch(/^call_/);
    expect(JSON.parse(calls.get(1)!.args)).toEqual({ text: 'hello world' });
    expect(calls.get(0)!.pieces).toBeGreaterThan(1);
    expect(calls.get(1)!.pieces).toBeGreaterThan(1);
    expect(content[content.length - 1]!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('sends no usage chunk and no usage fields when the request does not ask for usage', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'ok' }] });
    const data = sseData(await (await post(server, { stream: true })).text());
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Chunk);
    expect(chunks.every((c) => c.choices.length === 1 && !('usage' in c))).toBe(true);
    expect(chunks[chunks.length - 1]!.choices[0]!.finish_reason).toBe('stop');
  });

  it('answers non-streaming requests with one chat.completion', async () => {
    server = await startOpenAITestServer({
      model: 'served-model',
      script: [
        {
          thinking: 'hmm',
          text: ['a', 'b'],
          toolCalls: [{ name: 'add', input: { a: 1 }, id: 'c1' }],
          finishReason: 'length',
        },
      ],
    });
    const body = await json(await post(server, {}));
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'served-model',
      choices: [
        {
          index: 0,
          finish_reason: 'length',
          message: {
            role: 'assistant',
            content: 'ab',
            reasoning_content: 'hmm',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a":1}' } }],
          },
        },
      ],
    });
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('records every request and plays the script in order, then fails clearly when it runs out', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'one' }] });
    server.enqueue({ text: 'two' });
    expect(server.remainingTurns()).toBe(2);
    const first = await json(await post(server, { temperature: 0.2 }));
    const second = await json(await post(server, {}));
    expect([first.choices[0]!.message.content, second.choices[0]!.message.content]).toEqual(['one', 'two']);
    const third = await post(server, {});
    expect(third.status).toBe(500);
    const { error } = await json<ErrorBody>(third);
    expect(error.code).toBe('script_exhausted');
    expect(error.message).toContain('no turn for chat request #3 (it has 2 turns)');
    expect(server.requests).toHaveLength(3);
    expect(server.requests[0]!.body.temperature).toBe(0.2);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(server.requests[0]!.path).toBe('/v1/chat/completions');
    expect(server.requests.every((r) => r.completed && !r.clientClosed)).toBe(true);
    await server.waitForConnections(0, 500); // every response closed its connection
  });

  it('computes turns with a handler that sees the request and its index', async () => {
    server = await startOpenAITestServer({
      handler: (req, i) => ({ text: `#${i}: ${req.body.messages!.at(-1)!.content as string}` }),
    });
    const a = await json(await post(server, {}));
    const b = await json(await post(server, { messages: [{ role: 'user', content: 'again' }] }));
    expect([a.choices[0]!.message.content, b.choices[0]!.message.content]).toEqual(['#0: hi', '#1: again']);
  });

  it('answers a failing handler and unknown routes with clear errors', async () => {
    server = await startOpenAITestServer({
      handler: () => {
        throw new Error('boom');
      },
    });
    const failed = await post(server, {});
    expect(failed.status).toBe(500);
    expect((await json<ErrorBody>(failed)).error.message).toContain('the handler threw: boom');
    const missing = await fetch(`${server.url}/files`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect((await json<ErrorBody>(missing)).error.message).toContain('POST /v1/files');
  });

  it('closes each connection after its response, unless keepAlive', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'a' }, { text: 'b' }] });
    await (await post(server, { stream: true })).text();
    await server.waitForConnections(0, 500);
    await server.close();

    server = await startOpenAITestServer({ keepAlive: true, script: [{ text: 'a' }, { text: 'b' }] });
    await (await post(server, { stream: true })).text();
    await (await post(server, {})).json();
    await new Promise((r) => setTimeout(r, 50));
    expect(server.openConnections()).toBeGreaterThan(0); // kept for the client's pool; close() ends them
  });

  it('waits chunkDelayMs before each chunk', async () => {
    server = await startOpenAITestServer({ chunkDelayMs: 25, script: [{ text: ['a', 'b', 'c'] }] });
    const t0 = performance.now();
    const data = sseData(await (await post(server, { stream: true })).text());
    expect(data).toHaveLength(6); // role, 3 text chunks, finish, [DONE]
    expect(performance.now() - t0).toBeGreaterThanOrEqual(6 * 25 - 10);
  });

  describe('faults', () => {
    it.each([
      ['rate_limit', 429, 'rate_limit_exceeded'],
      ['server_error', 500, null],
      ['unauthorized', 401, 'invalid_api_key'],
    ] as const)('%s answers HTTP %i with an OpenAI error body', async (fault, status, code) => {
      server = await startOpenAITestServer({ script: [{ fault, retryAfterSeconds: 3 }] });
      const res = await post(server, { stream: true });
      expect(res.status).toBe(status);
      const body = await json<ErrorBody>(res);
      expect(body.error).toMatchObject({ code });
      expect(typeof body.error.message).toBe('string');
      expect(res.headers.get('retry-after')).toBe(fault === 'unauthorized' ? null : '3');
    });

    it('drop_mid_stream sends the first chunks, then destroys the connection', async () => {
      server = await startOpenAITestServer({
        script: [
          { text: ['a', 'b', 'c', 'd'] },
          { text: 'whole', fault: 'drop_mid_stream' },
          { text: 'whole', fault: 'drop_mid_stream' },
        ],
      });
      await (await post(server, {})).text();
      const res = await post(server, { stream: true });
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
      const nonStreaming = await post(server, {});
      await expect(nonStreaming.json()).rejects.toThrow();
      await server.waitForConnections(0);
      expect(server.requests[1]!.clientClosed).toBe(false);
    });

    it('drop_mid_stream really cuts a stream short', async () => {
      server = await startOpenAITestServer({ script: [{ text: ['a', 'b', 'c', 'd'], fault: 'drop_mid_stream' }] });
      const res = await post(server, { stream: true });
      const reader = res.body!.getReader();
      let received = '';
      await expect(
        (async () => {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            received += new TextDecoder().decode(value);
          }
        })(),
      ).rejects.toThrow();
      expect(received).toContain('chat.completion.chunk');
      expect(received).not.toContain('[DONE]');
    });

    it('malformed_sse sends a data line that is not JSON', async () => {
      server = await startOpenAITestServer({
        script: [
          { text: 'x', fault: 'malformed_sse' },
          { text: 'x', fault: 'malformed_sse' },
        ],
      });
      const data = sseData(await (await post(server, { stream: true })).text());
      const bad = data
        .filter((d) => d !== '[DONE]')
        .filter((d) => {
          try {
            JSON.parse(d);
            return false;
          } catch {
            return true;
          }
        });
      expect(bad).toHaveLength(1);
      await expect((await post(server, {})).json()).rejects.toThrow();
    });

    it('malformed_tool_json sends arguments that are not valid JSON, for the first declared tool by default', async () => {
      server = await startOpenAITestServer({ script: [{ fault: 'malformed_tool_json' }] });
      const body = await json(
        await post(server, { tools: [{ type: 'function', function: { name: 'lookup', parameters: {} } }] }),
      );
      const call = body.choices[0]!.message.tool_calls![0]!;
      expect(call.function.name).toBe('lookup');
      expect(() => JSON.parse(call.function.arguments) as unknown).toThrow();
    });

    it('unknown_tool names a tool the request did not declare', async () => {
      server = await startOpenAITestServer({
        script: [{ fault: 'unknown_tool', toolCalls: [{ name: 'lookup', input: { q: 1 } }] }],
      });
      const body = await json(
        await post(server, { tools: [{ type: 'function', function: { name: 'lookup', parameters: {} } }] }),
      );
      const call = body.choices[0]!.message.tool_calls![0]!;
      expect(call.function.name).not.toBe('lookup');
      expect(JSON.parse(call.function.arguments)).toEqual({ q: 1 });
    });

    it('empty_choices answers with an empty choices array', async () => {
      server = await startOpenAITestServer({
        script: [
          { text: 'x', fault: 'empty_choices' },
          { text: 'x', fault: 'empty_choices' },
        ],
      });
      const data = sseData(
        await (await post(server, { stream: true, stream_options: { include_usage: true } })).text(),
      );
      const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Chunk);
      expect(chunks.every((c) => c.choices.length === 0)).toBe(true);
      expect((await json(await post(server, {}))).choices).toEqual([]);
    });

    it('stall sends one chunk, then nothing until the client aborts', async () => {
      server = await startOpenAITestServer({ script: [{ text: ['a', 'b'], fault: 'stall' }] });
      const controller = new AbortController();
      const res = await post(server, { stream: true }, { signal: controller.signal });
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toContain('"role":"assistant"');
      const next = reader.read();
      const outcome = await Promise.race([
        next.then(() => 'data'),
        new Promise((r) => setTimeout(() => r('silence'), 100)),
      ]);
      expect(outcome).toBe('silence');
      expect(server.openConnections()).toBe(1);
      controller.abort();
      await expect(next).rejects.toThrow();
      await server.waitForConnections(0);
      expect(server.requests[0]!.clientClosed).toBe(true);
      expect(server.requests[0]!.completed).toBe(false);
    });

    it('close() ends a stalled stream', async () => {
      server = await startOpenAITestServer({ script: [{ text: 'a', fault: 'stall' }] });
      const res = await post(server, { stream: true });
      const reader = res.body!.getReader();
      await reader.read();
      const next = reader.read();
      await server.close();
      await expect(next).rejects.toThrow();
      expect(server.openConnections()).toBe(0);
    });
  });
});
