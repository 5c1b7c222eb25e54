import { type AIMessage, AIMessageChunk, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { ChatOpenAI } from '@langchain/openai';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../../agent/agent.js';
import type { ModelEvent } from '../../event/events.js';
import type { Msg } from '../../message/blocks.js';
import { createMsg } from '../../message/msg.js';
import { assertConsistentConversation, assertReplyGrammar } from '../../testing/grammar.js';
import { startOpenAITestServer, type OpenAITestServer, type ServerTurn } from '../../testing/node/index.js';
import { defineTool } from '../../tool/tool.js';
import type { ModelRequest, ToolChoice, ToolSchema } from '../chat-model.js';
import { ModelError } from '../model-error.js';
import { OpenAIChatModel } from '../openai/openai-chat-model.js';
import { LangChainChatModel } from './langchain-chat-model.js';
import { toLangChainMessages } from './langchain-messages.js';

const weather: ToolSchema = {
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
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

const collect = (
  model: { stream(r: ModelRequest): import('rxjs').Observable<ModelEvent> },
  req: ModelRequest = request(),
) => lastValueFrom(model.stream(req).pipe(toArray()));

const failure = (model: { stream(r: ModelRequest): import('rxjs').Observable<ModelEvent> }): Promise<ModelError> =>
  collect(model).then(
    () => {
      throw new Error('expected the model call to fail');
    },
    (e: unknown) => e as ModelError,
  );

/** Events with block ids normalised and the deltas of each block joined, to compare adapters. */
function content(events: readonly ModelEvent[]): unknown[] {
  const ids = new Map<string, string>();
  const out: Record<string, unknown>[] = [];
  for (const e of events) {
    const x: Record<string, unknown> = { ...e };
    if ('blockId' in e) {
      if (!ids.has(e.blockId)) ids.set(e.blockId, `#${ids.size}`);
      x['blockId'] = ids.get(e.blockId);
    }
    if (e.type === 'MODEL_CALL_END') {
      delete x['responseModel'];
      delete x['responseId'];
    }
    const last = out[out.length - 1];
    if (e.type.endsWith('_DELTA') && last?.['type'] === e.type)
      last['delta'] = `${last['delta'] as string}${(e as { delta: string }).delta}`;
    else out.push(x);
  }
  return out;
}

describe('LangChainChatModel', () => {
  it('refuses an unknown option with "did you mean", and a LangChain model given in place of its options', () => {
    const fake = new FakeStreamingChatModel({});
    const refusal = (options: unknown) => {
      try {
        new LangChainChatModel(options as never);
      } catch (e) {
        return e as ModelError;
      }
      throw new Error('not refused');
    };
    const typo = refusal({ model: fake, callOption: {} });
    expect(typo).toBeInstanceOf(ModelError);
    expect(typo).toMatchObject({ code: 'unknown_option', retryable: false });
    expect(typo.message).toContain('unknown option "callOption" of LangChainChatModel; did you mean "callOptions"?');
    expect(refusal(fake)).toMatchObject({ code: 'invalid_configuration' });
    expect(refusal(fake).message).toContain('new LangChainChatModel({ model })');
  });

  describe('over ChatOpenAI and the OpenAI-compatible test server', () => {
    let server: OpenAITestServer;
    const chat = (options: Partial<ConstructorParameters<typeof ChatOpenAI>[0] & object> = {}) =>
      new ChatOpenAI({
        model: 'gpt-test',
        apiKey: 'sk-test',
        configuration: { baseURL: server.url },
        maxRetries: 0,
        streaming: true,
        ...options,
      });

    beforeEach(async () => {
      server = await startOpenAITestServer();
    });
    afterEach(async () => {
      try {
        await server.waitForConnections(0, 1000);
      } finally {
        await server.close();
      }
    });

    it('streams the same events as OpenAIChatModel: thinking, text, several tool calls, usage, finish reason', async () => {
      const turn: ServerTurn = {
        thinking: ['Let me ', 'look.'],
        text: ['Checking ', 'both.'],
        toolCalls: [
          { name: 'get_weather', input: { city: 'Paris' }, id: 'c1' },
          { name: 'get_weather', input: { city: 'Oslo' }, id: 'c2' },
        ],
        usage: { inputTokens: 40, outputTokens: 12, cacheReadTokens: 32, reasoningTokens: 4 },
      };
      server.enqueue(turn, turn);
      const viaLangChain = await collect(new LangChainChatModel({ model: chat() }), request({ tools: [weather] }));
      const direct = await collect(
        new OpenAIChatModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url }),
        request({ tools: [weather] }),
      );
      expect(content(viaLangChain)).toEqual(content(direct));
      expect(viaLangChain.at(-1)).toEqual({
        type: 'MODEL_CALL_END',
        model: 'gpt-test',
        responseModel: 'gpt-test',
        responseId: expect.stringMatching(/^chatcmpl-/) as unknown,
        finishReason: 'tool_calls',
        usage: { inputTokens: 40, outputTokens: 12, cacheReadTokens: 32, reasoningTokens: 4 },
      });
      expect(viaLangChain.filter((e) => e.type === 'TOOL_CALL_DELTA').length).toBeGreaterThan(2);
    });

    it.each<[ToolChoice, unknown]>([
      ['auto', 'auto'],
      ['none', 'none'],
      ['required', 'required'],
      [{ name: 'get_weather' }, { type: 'function', function: { name: 'get_weather' } }],
    ])('binds the tools with toolChoice %j', async (toolChoice, wire) => {
      server.enqueue({ text: 'ok' });
      await collect(new LangChainChatModel({ model: chat() }), request({ tools: [weather], toolChoice }));
      const body = server.requests[0]!.body;
      expect(body.tools).toEqual([
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Current weather of a city', parameters: weather.parameters },
        },
      ]);
      expect(body.tool_choice).toEqual(wire);
    });

    it('passes stop per call and yields the same events in invoke mode', async () => {
      const turn: ServerTurn = {
        text: 'Hello there',
        toolCalls: [{ name: 'get_weather', input: { city: 'Rome' }, id: 'c9' }],
      };
      server.enqueue(turn, turn);
      const streamed = await collect(
        new LangChainChatModel({ model: chat() }),
        request({ tools: [weather], options: { stop: ['END'] } }),
      );
      const invoked = await collect(
        new LangChainChatModel({ model: chat({ streaming: false }), streaming: false }),
        request({ tools: [weather], options: { stop: ['END'] } }),
      );
      expect(server.requests[0]!.body.stop).toEqual(['END']);
      expect(server.requests[1]!.body.stream).toBeFalsy();
      const strip = (events: ModelEvent[]) =>
        content(events).map((e) =>
          (e as ModelEvent).type === 'MODEL_CALL_END' ? { ...(e as object), usage: undefined } : e,
        );
      expect(strip(invoked)).toEqual(strip(streamed));
    });

    it('unsubscribing aborts the request: the server sees the socket close', async () => {
      server.enqueue({ text: Array.from({ length: 40 }, (_, i) => `w${i} `), chunkDelayMs: 20 });
      const model = new LangChainChatModel({ model: chat() });
      await new Promise<void>((resolve, reject) => {
        let deltas = 0;
        const sub = model.stream(request()).subscribe({
          next: (e) => {
            if (e.type === 'TEXT_BLOCK_DELTA' && ++deltas === 2) {
              sub.unsubscribe();
              resolve();
            }
          },
          error: reject,
        });
      });
      await server.waitForConnections(0, 1000);
      expect(server.requests[0]!.clientClosed).toBe(true);
    });

    it('HTTP errors become typed ModelErrors', async () => {
      server.enqueue({ fault: 'rate_limit', retryAfterSeconds: 3 });
      const err = await failure(new LangChainChatModel({ model: chat() }));
      expect(err).toBeInstanceOf(ModelError);
      expect(err).toMatchObject({ status: 429, retryable: true, retryAfterMs: 3000, code: 'rate_limited' });
    });

    it('drives an Agent through a tool round trip with a valid conversation on the wire', async () => {
      server.enqueue(
        { toolCalls: [{ name: 'get_weather', input: { city: 'Lima' }, id: 'call_1' }] },
        { text: 'Sunny in Lima.' },
      );
      const getWeather = defineTool({
        name: 'get_weather',
        description: 'Current weather of a city',
        input: z.object({ city: z.string() }),
        execute: ({ city }) => Promise.resolve(`Sunny in ${city}`),
      });
      const agent = new Agent({
        model: new LangChainChatModel({ model: chat() }),
        tools: [getWeather],
        sysPrompt: 'Be brief.',
      });
      const events = await lastValueFrom(agent.reply('weather in Lima?').pipe(toArray()));
      expect(assertReplyGrammar(events).finishReason).toBe('completed');
      assertConsistentConversation(agent.context);
      expect(server.requests[1]!.body.messages).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'weather in Lima?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lima"}' } },
          ],
        },
        // ToolMessage carries the tool name (Gemini needs it); ChatOpenAI sends it along.
        { role: 'tool', content: 'Sunny in Lima', tool_call_id: 'call_1', name: 'get_weather' },
      ]);
    });

    it("describes what a call sends (server, streaming, the model's own options, stop) on MODEL_CALL_START", async () => {
      server.enqueue({ text: 'Hi' });
      const model = new LangChainChatModel({ model: chat({ temperature: 0.3, maxTokens: 64, topP: 0.9 }) });
      // The agent's modelOptions are not sent through LangChain (its model's own are), so not described either.
      const agent = new Agent({ model, modelOptions: { temperature: 0.9, stop: ['END'] } });
      const events = await lastValueFrom(agent.reply('Hello').pipe(toArray()));
      const start = events.find((e) => e.type === 'MODEL_CALL_START');
      const url = new URL(server.url);
      expect(start).toMatchObject({
        provider: 'openai',
        request: {
          provider: 'openai',
          serverAddress: url.hostname,
          serverPort: Number(url.port),
          stream: true,
          options: { temperature: 0.3, maxTokens: 64, topP: 0.9, stop: ['END'] },
        },
      });
      // What was described is what went over the wire.
      expect(server.requests[0]!.body).toMatchObject({
        temperature: 0.3,
        max_tokens: 64,
        top_p: 0.9,
        stop: ['END'],
        stream: true,
      });
      expect(events.find((e) => e.type === 'MODEL_CALL_END')).toMatchObject({
        responseId: expect.stringMatching(/^chatcmpl-/) as unknown,
      });
    });
  });

  describe('over a LangChain fake model', () => {
    it('describes a model without a server or sampling options as just that', () => {
      const model = new LangChainChatModel({ model: new FakeStreamingChatModel({}), streaming: false });
      expect(model.describeRequest({ messages: [], tools: [], toolChoice: 'auto', options: { stop: ['X'] } })).toEqual({
        provider: 'fake',
        stream: false,
        options: { stop: ['X'] },
      });
    });

    it('maps content blocks (thinking, text) and complete tool calls without an index', async () => {
      const fake = new FakeStreamingChatModel({
        sleep: 0,
        chunks: [
          new AIMessageChunk({ content: [{ type: 'thinking', thinking: 'Hmm, ' }] }),
          new AIMessageChunk({ content: [{ type: 'thinking', thinking: 'weather.' }] }),
          new AIMessageChunk({ content: [{ type: 'text', text: 'Let me check.' }] }),
          new AIMessageChunk({
            content: '',
            tool_calls: [{ id: 't1', name: 'get_weather', args: { city: 'Bern' }, type: 'tool_call' }],
          }),
          new AIMessageChunk({
            content: '',
            tool_calls: [{ id: 't2', name: 'get_weather', args: { city: 'Graz' }, type: 'tool_call' }],
          }),
        ],
      });
      const model = new LangChainChatModel({ model: fake, modelName: 'fake-model' });
      expect(model.provider).toBe('fake');
      const events = await collect(model);
      expect(content(events)).toEqual([
        { type: 'THINKING_BLOCK_START', blockId: '#0' },
        { type: 'THINKING_BLOCK_DELTA', blockId: '#0', delta: 'Hmm, weather.' },
        { type: 'THINKING_BLOCK_END', blockId: '#0' },
        { type: 'TEXT_BLOCK_START', blockId: '#1' },
        { type: 'TEXT_BLOCK_DELTA', blockId: '#1', delta: 'Let me check.' },
        { type: 'TEXT_BLOCK_END', blockId: '#1' },
        { type: 'TOOL_CALL_START', blockId: '#2', toolCallId: 't1', name: 'get_weather' },
        { type: 'TOOL_CALL_DELTA', blockId: '#2', delta: '{"city":"Bern"}' },
        { type: 'TOOL_CALL_END', blockId: '#2' },
        { type: 'TOOL_CALL_START', blockId: '#3', toolCallId: 't2', name: 'get_weather' },
        { type: 'TOOL_CALL_DELTA', blockId: '#3', delta: '{"city":"Graz"}' },
        { type: 'TOOL_CALL_END', blockId: '#3' },
        {
          type: 'MODEL_CALL_END',
          model: 'fake-model',
          finishReason: 'tool_calls',
          usage: { inputTokens: 0, outputTokens: 0 },
        },
      ]);
    });

    it('a failing model becomes a ModelError', async () => {
      const model = new LangChainChatModel({
        model: new FakeStreamingChatModel({ thrownErrorString: 'provider exploded' }),
      });
      const err = await failure(model);
      expect(err).toBeInstanceOf(ModelError);
      expect(err.message).toContain('provider exploded');
    });

    it('converts the conversation to LangChain messages with tool calls paired to ToolMessages', () => {
      const reply: Msg = {
        id: 'r',
        role: 'assistant',
        name: 'assistant',
        createdAt: 0,
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'tool_call', id: 'c2', name: 'get_weather', arguments: '{"city": "Par' },
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
            name: 'get_weather',
            status: 'error',
            output: [{ type: 'text', text: 'not valid JSON' }],
          },
          { type: 'hint', text: 'Answer now.' },
        ],
      };
      const lc = toLangChainMessages([createMsg('user', 'weather?'), reply]);
      expect(lc.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'tool', 'human']);
      expect(lc[0]).toBeInstanceOf(HumanMessage);
      const ai = lc[1] as AIMessage;
      expect(ai.content).toBe('Looking.');
      expect(ai.tool_calls).toEqual([
        { id: 'c1', name: 'get_weather', args: { city: 'Paris' }, type: 'tool_call' },
        { id: 'c2', name: 'get_weather', args: {}, type: 'tool_call' },
      ]);
      expect((lc[3] as ToolMessage).status).toBe('error');
      expect((lc[3] as ToolMessage).tool_call_id).toBe('c2');
      expect(lc[4]!.content).toBe('Answer now.');
    });
  });
});
