// One vocabulary for scripted turns: the same ScriptedTurn[] scripts ScriptedChatModel (in
// memory) and the OpenAI-compatible test server (over HTTP, through the real OpenAIChatModel),
// and both give the same reply. The server's old spelling (reasoning, arguments as an object,
// prompt_tokens...) still works for one version, sending exactly the same wire.
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../../agent/agent.js';
import type { AgentEvent } from '../../event/events.js';
import type { ChatModel } from '../../model/chat-model.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { defineTool } from '../../tool/tool.js';
import { ScriptedChatModel, type ScriptedTurn } from '../index.js';
import { startOpenAITestServer, type OpenAITestServer, type ServerTurn } from './index.js';

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => ({ city, tempC: 21 }),
});

const turns: ScriptedTurn[] = [
  {
    thinking: ['The user wants ', 'the weather.'],
    toolCalls: [{ name: 'get_weather', input: { city: 'Paris' }, id: 'call_w1' }],
    usage: { inputTokens: 40, outputTokens: 12 },
  },
  {
    text: ['It is 21 °C ', 'in Paris.'],
    usage: { inputTokens: 65, outputTokens: 8, cacheReadTokens: 32, reasoningTokens: 0 },
  },
];

/** What a user of the reply sees, without ids and timestamps. */
async function replyOf(model: ChatModel) {
  const agent = new Agent({ model, tools: [getWeather] });
  const events: AgentEvent[] = await lastValueFrom(agent.reply('Weather in Paris?').pipe(toArray()));
  const joined = (type: 'TEXT_BLOCK_DELTA' | 'THINKING_BLOCK_DELTA') =>
    events.map((e) => (e.type === type ? e.delta : '')).join('');
  const ends = events.flatMap((e) =>
    e.type === 'MODEL_CALL_END' ? [{ finishReason: e.finishReason, usage: e.usage }] : [],
  );
  const end = events.at(-1)!;
  return {
    thinking: joined('THINKING_BLOCK_DELTA'),
    text: joined('TEXT_BLOCK_DELTA'),
    calls: agent.context.at(-1)!.content.filter((b) => b.type === 'tool_call' || b.type === 'tool_result'),
    modelCalls: ends,
    finishReason: end.type === 'REPLY_END' ? end.finishReason : undefined,
  };
}

describe('one vocabulary for scripted turns', () => {
  let server: OpenAITestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('the same turns give the same reply from ScriptedChatModel and from the test server', async () => {
    const inMemory = await replyOf(new ScriptedChatModel(turns));
    server = await startOpenAITestServer({ script: turns });
    const overHttp = await replyOf(new OpenAIChatModel({ model: 'test-model', apiKey: 'test', baseURL: server.url }));

    expect(inMemory).toMatchObject({
      thinking: 'The user wants the weather.',
      text: 'It is 21 °C in Paris.',
      finishReason: 'completed',
      modelCalls: [
        { finishReason: 'tool_calls', usage: { inputTokens: 40, outputTokens: 12 } },
        { finishReason: 'stop', usage: { inputTokens: 65, outputTokens: 8, cacheReadTokens: 32, reasoningTokens: 0 } },
      ],
    });
    expect(inMemory.calls).toEqual([
      expect.objectContaining({ type: 'tool_call', id: 'call_w1', name: 'get_weather', arguments: '{"city":"Paris"}' }),
      expect.objectContaining({ type: 'tool_result', toolCallId: 'call_w1', status: 'success' }),
    ]);
    expect(overHttp).toEqual(inMemory);
  });

  it('still takes the old spelling of a server turn (deprecated): the same wire as the new one', async () => {
    const current: ServerTurn = {
      thinking: 'hmm',
      text: 'ok',
      toolCalls: [{ name: 'add', input: { a: 1, b: 2 }, id: 'c1' }],
      usage: { inputTokens: 11, outputTokens: 7, cacheReadTokens: 4, reasoningTokens: 2 },
    };
    const old: ServerTurn = {
      reasoning: 'hmm',
      text: 'ok',
      toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 }, id: 'c1' }],
      usage: { prompt_tokens: 11, completion_tokens: 7, cached_tokens: 4, reasoning_tokens: 2 },
    };
    server = await startOpenAITestServer({ script: [current, old] });
    const complete = async () => {
      const res = await fetch(`${server!.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
      const body = (await res.json()) as { choices: unknown; usage: unknown };
      return { choices: body.choices, usage: body.usage };
    };
    const fromCurrent = await complete();
    expect(fromCurrent).toMatchObject({
      choices: [
        {
          message: {
            content: 'ok',
            reasoning_content: 'hmm',
            tool_calls: [{ id: 'c1', function: { name: 'add', arguments: '{"a":1,"b":2}' } }],
          },
        },
      ],
      usage: {
        prompt_tokens: 11,
        completion_tokens: 7,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 2 },
      },
    });
    expect(await complete()).toEqual(fromCurrent);
  });
});
