import { z } from 'zod';
import { Agent, defineTool } from '../../../index.js';
import { OpenAIChatModel } from '../../../model/openai/index.js';
import { startOpenAITestServer } from '../../../testing/node/index.js';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

it('sends the tool result back to the model', async () => {
  const server = await startOpenAITestServer({
    script: [
      { toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] },
      { text: ['The sum ', 'is 5.'], usage: { inputTokens: 50, outputTokens: 6 } },
    ],
  });
  const model = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'test', baseURL: server.url });
  const agent = new Agent({ model, tools: [add] });
  await agent.call('What is 2 + 3?');
  expect(server.requests[1]!.body.messages!.at(-1)).toEqual({
    role: 'tool',
    tool_call_id: expect.any(String),
    content: '5',
  });
  await server.close();
  expect(server.openConnections()).toBe(0);
});
