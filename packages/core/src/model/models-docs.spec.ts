/**
 * docs/models.md, run as tests, checking what a reader of the page would notice if one broke. The
 * page's OpenAIChatModel example is a file in src/__tests__/docs/models/ that the page shows through
 * a `<!-- snippet: ... -->` marker (checked by scripts/doc-snippets.spec.ts); its test-server
 * example is a spec there (test-server.spec.ts), run as is.
 *
 * Blocks of the page that are not run, and why:
 * - the `npm install` lines: shell commands;
 * - `new OpenAIChatModel({ apiKey, baseURL: ... })` with the errors it throws: it shows options
 *   TypeScript already refuses (`model` missing); the messages are tested in
 *   src/model/openai/openai-chat-model-options.spec.ts;
 * - LangChainChatModel over `ChatAnthropic`: `@langchain/anthropic` is not a dependency here; the
 *   test below wraps ChatOpenAI the same way.
 */
import { ChatOpenAI } from '@langchain/openai';
import { Agent, AgentError, createMsg, defineTool, textOfMsg } from '@rxscope/core';
import { OpenAIChatModel, toOpenAIMessages } from '@rxscope/core/openai';
import { LangChainChatModel } from '@rxscope/core/langchain';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { localModel, whatIsTwoPlusThree } from '../__tests__/docs/models/openai-chat-model.js';

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

  it('OpenAIChatModel takes the key (and the server) from the environment', async () => {
    server = await startOpenAITestServer({
      script: [{ toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] }, { text: ['The sum ', 'is 5.'] }],
    });
    const saved = { key: process.env['OPENAI_API_KEY'], url: process.env['OPENAI_BASE_URL'] };
    process.env['OPENAI_API_KEY'] = 'sk-from-env';
    process.env['OPENAI_BASE_URL'] = server.url;
    try {
      expect(textOfMsg(await whatIsTwoPlusThree(add))).toBe('The sum is 5.');
    } finally {
      for (const [name, value] of [
        ['OPENAI_API_KEY', saved.key],
        ['OPENAI_BASE_URL', saved.url],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-from-env');
    expect(server.requests[1]!.body.messages!.at(-1)).toMatchObject({ role: 'tool', content: '5' });
  });

  it('OpenAIChatModel options: a local server needs only a model, a base URL and apiKey: null', () => {
    const local = localModel();
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
