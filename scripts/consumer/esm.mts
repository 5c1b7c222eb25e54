// The consumer test's ES module program: a newcomer's first agent, written against the packed
// and npm-installed packages (never the workspace's sources). One tool, a real OpenAI-compatible
// HTTP server (the test server) behind the real model adapter, a built-in middleware, and a
// harness agent. Prints one JSON line the spec checks; exits non-zero on a failed assertion.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, defineTool, textOfMsg, type AgentEvent } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { startOpenAITestServer } from '@rxscope/core/testing/node';
import { ModelCallLimitMiddleware } from '@rxscope/middleware-builtin';
import { createHarnessAgent, describeHarness } from '@rxscope/harness';

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => ({ city, tempC: city.length * 3 }),
});

// The input schema types `city` as a string: a consumer gets real types, not `any`.
defineTool({
  name: 'bad',
  description: 'x',
  input: z.object({ city: z.string() }),
  // @ts-expect-error a string has no toFixed
  execute: ({ city }) => city.toFixed(),
});

// The "model": first asks for the tool, then answers with the tool result it was sent.
const server = await startOpenAITestServer({
  handler: (request, index) => {
    if (index === 0) return { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };
    const toolMessage = request.body.messages?.find((m) => m.role === 'tool');
    return { text: ['The tool said ', String(toolMessage?.content)] };
  },
});
try {
  const agent = new Agent({
    name: 'assistant',
    sysPrompt: 'You are a concise weather assistant.',
    model: new OpenAIChatModel({ model: 'test-model', apiKey: 'test', baseURL: server.url }),
    tools: [getWeather],
    middlewares: [new ModelCallLimitMiddleware({ perReply: 5 })],
  });

  // One reply = one subscription to a cold Observable of typed events.
  const events: AgentEvent[] = await lastValueFrom(agent.reply('What is the weather in Paris?').pipe(toArray()));
  const types = events.map((e) => e.type);
  const streamed = events.map((e) => (e.type === 'TEXT_BLOCK_DELTA' ? e.delta : '')).join('');
  const end = events.at(-1);
  assert.equal(end?.type === 'REPLY_END' && end.finishReason, 'completed');
  const msg = agent.context.at(-1)!;
  assert.equal(streamed, 'The tool said {"city":"Paris","tempC":15}');
  assert.equal(textOfMsg(msg), streamed);

  // The harness on a fresh workspace, with an in-memory scripted model.
  const workspace = mkdtempSync(join(tmpdir(), 'rxscope-consumer-ws-'));
  const coder = createHarnessAgent({ model: new ScriptedChatModel([{ text: 'Ready.' }]), workspace, sandbox: 'none' });
  const ready = textOfMsg(await coder.call('Are you there?'));
  assert.equal(ready, 'Ready.');

  console.log(
    JSON.stringify({ answer: streamed, types, harnessParts: describeHarness(coder).parts.length, harness: ready }),
  );
} finally {
  await server.close();
}
