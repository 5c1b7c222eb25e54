// What OpenAIChatModel tells middlewares about a call (for tracing and usage reports): the server,
// streaming, the request options in effect, and the response id, against the real test server.
import { lastValueFrom, toArray } from 'rxjs';
import { Agent } from '../../agent/agent.js';
import type { AgentEventOf } from '../../event/events.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { OpenAIChatModel } from './openai-chat-model.js';

describe('OpenAIChatModel request info', () => {
  let server: OpenAITestServer;
  afterEach(async () => server?.close());

  it('puts server, streaming and the options in effect on MODEL_CALL_START, the response id on MODEL_CALL_END', async () => {
    server = await startOpenAITestServer({
      script: [{ text: 'Hi', usage: { inputTokens: 7, outputTokens: 5, reasoningTokens: 3 } }],
    });
    const model = new OpenAIChatModel({
      model: 'm',
      apiKey: 'k',
      baseURL: server.url,
      temperature: 0.3,
      maxTokens: 64,
    });
    const agent = new Agent({ model, modelOptions: { topP: 0.9, temperature: 0.1 } });
    const events = await lastValueFrom(agent.reply('Hello').pipe(toArray()));
    const start = events.find((e) => e.type === 'MODEL_CALL_START') as AgentEventOf<'MODEL_CALL_START'>;
    const end = events.find((e) => e.type === 'MODEL_CALL_END') as AgentEventOf<'MODEL_CALL_END'>;
    const url = new URL(server.url);
    expect(start.provider).toBe('openai');
    expect(start.request).toEqual({
      provider: 'openai',
      serverAddress: url.hostname,
      serverPort: Number(url.port),
      stream: true,
      options: { temperature: 0.1, topP: 0.9, maxTokens: 64 },
    });
    // What was described is what went over the wire.
    expect(server.requests[0]!.body).toMatchObject({ temperature: 0.1, top_p: 0.9, max_tokens: 64, stream: true });
    expect(end.responseId).toMatch(/^chatcmpl-/);
    expect(end.usage).toEqual({ inputTokens: 7, outputTokens: 5, reasoningTokens: 3 });
  });

  it('names api.openai.com:443 when no baseURL is given, and a non-streaming model says so', () => {
    const model = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'k', streaming: false });
    expect(model.describeRequest({ messages: [], tools: [], toolChoice: 'auto', options: { stop: ['END'] } })).toEqual({
      provider: 'openai',
      serverAddress: 'api.openai.com',
      serverPort: 443,
      stream: false,
      options: { stop: ['END'] },
    });
  });

  it('describes each options object for itself: a request with other options gets its own description', () => {
    const model = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'k', temperature: 0.3 });
    const request = (options: Record<string, unknown>) => ({
      messages: [],
      tools: [],
      toolChoice: 'auto' as const,
      options,
    });
    const shared = { maxTokens: 10 };
    expect(model.describeRequest(request(shared)).options).toEqual({ temperature: 0.3, maxTokens: 10 });
    expect(model.describeRequest(request({ temperature: 0.9 })).options).toEqual({ temperature: 0.9 });
    expect(model.describeRequest(request(shared)).options).toEqual({ temperature: 0.3, maxTokens: 10 });
    expect(model.describeRequest(request({})).options).toEqual({ temperature: 0.3 });
  });
});
