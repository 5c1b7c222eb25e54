/**
 * The snippets of docs/models.md, run as tests with the same public imports (`@rxscope/core`,
 * `@rxscope/core/testing/node`), checking what a reader of the page would notice if one broke.
 */
import { ChatOpenAI } from '@langchain/openai';
import { Agent, AgentError, createMsg, defineTool, textOfMsg } from '@rxscope/core';
import { OpenAIChatModel, toOpenAIMessages } from '@rxscope/core/openai';
import { LangChainChatModel } from '@rxscope/core/langchain';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  readOnly: true,
  execute: ({ a, b }) => Promise.resolve(String(a + b)),
});

describe('docs/models.md', () => {
  let server: OpenAITestServer;
  afterEach(async () => {
    await server?.close();
  });

  it('the test server example: an agent with a tool over OpenAIChatModel', async () => {
    server = await startOpenAITestServer({
      script: [
        { toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] },
        { text: ['The sum ', 'is 5.'], usage: { inputTokens: 50, outputTokens: 6 } },
      ],
    });
    const model = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'test', baseURL: server.url });
    const agent = new Agent({ model, tools: [add] });
    const reply = await agent.call('What is 2 + 3?');
    expect(textOfMsg(reply)).toBe('The sum is 5.');
    expect(server.requests[1]!.body.messages!.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: expect.any(String),
      content: '5',
    });
    await server.close();
    expect(server.openConnections()).toBe(0);
  });

  it('OpenAIChatModel options: a local server needs only a model, a base URL and apiKey: null', () => {
    const local = new OpenAIChatModel({ model: 'qwen3:8b', baseURL: 'http://localhost:11434/v1', apiKey: null });
    expect([local.modelName, local.provider]).toEqual(['qwen3:8b', 'openai']);
    expect(local.chatOpenAI).toBeInstanceOf(ChatOpenAI);
  });

  it('a model failure ends the reply with the ModelError info, and call() rejects with an AgentError', async () => {
    server = await startOpenAITestServer({ script: [{ fault: 'rate_limit', retryAfterSeconds: 2 }] });
    const agent = new Agent({
      model: new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'test', baseURL: server.url }),
    });
    const err = await agent.call('hi').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect((err as AgentError).info).toMatchObject({
      name: 'ModelError',
      status: 429,
      retryable: true,
      code: 'rate_limited',
    });
    expect((err as AgentError).message).toContain('Rate limit');
  });

  it('LangChainChatModel wraps any LangChain chat model (ChatOpenAI standing in for ChatAnthropic)', async () => {
    server = await startOpenAITestServer({
      script: [{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: '2' }],
    });
    const model = new LangChainChatModel({
      model: new ChatOpenAI({
        model: 'gpt-4o-mini',
        apiKey: 'test',
        configuration: { baseURL: server.url },
        maxRetries: 0,
      }),
    });
    const agent = new Agent({ model, tools: [add] });
    expect(textOfMsg(await agent.call('1 + 1?'))).toBe('2');
  });

  it('toOpenAIMessages: one assistant message per run, a tool message per result, hints as user messages', () => {
    const reply = createMsg('assistant', [
      { type: 'text', text: 'Adding.' },
      { type: 'tool_call', id: 'c1', name: 'add', arguments: '{"a":1,"b":2}' },
      { type: 'tool_result', toolCallId: 'c1', name: 'add', status: 'success', output: [{ type: 'text', text: '3' }] },
      { type: 'hint', text: 'Answer now.' },
      { type: 'text', text: 'It is 3.' },
    ]);
    expect(toOpenAIMessages([createMsg('user', '1 + 2?'), reply]).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
  });

  it('the error table lists every code a model error can have', () => {
    const root = join(__dirname, '..', '..', '..', '..');
    const doc = readFileSync(join(root, 'docs', 'models.md'), 'utf8');
    const table = doc.slice(doc.indexOf('### Errors'), doc.indexOf('### The lean path'));
    const sources = [
      'to-model-error.ts',
      'openai/openai-chat-model.ts',
      'openai/openai-chat-model-options.ts',
      'langchain/langchain-chat-model.ts',
    ];
    const codes = new Set<string>();
    for (const file of sources) {
      const text = readFileSync(join(__dirname, file), 'utf8');
      for (const m of text.matchAll(/code: '([a-z_]+)'|return '([a-z_]+)';|`(http_)\$\{status\}`/g))
        codes.add(m[1] ?? m[2] ?? `${m[3]}<status>`);
    }
    expect(codes.size).toBeGreaterThan(15);
    expect([...codes].filter((code) => !table.includes(`\`${code}\``))).toEqual([]);
  });
});
