// The first half of a cross-process elicitation: an agent with a file session store calls
// server-everything's elicitation tool, the reply suspends, the process prints the pending call
// and exits (its MCP connection and server process go with it). Run with tsx.
//   MODEL_URL  the OpenAI-compatible test server    STORE_DIR  the FileSessionStore folder
//   EVERYTHING  server-everything's dist/index.js
import { lastValueFrom, toArray } from 'rxjs';
import { Agent } from '@rxscope/core';
import { FileSessionStore } from '@rxscope/core/node';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { McpMiddleware } from '../index.js';

async function main(): Promise<void> {
  const mcp = await McpMiddleware.connect({
    servers: {
      everything: { command: process.execPath, args: [process.env['EVERYTHING']!, 'stdio'], stderr: 'ignore' },
    },
  });
  const agent = new Agent({
    model: new OpenAIChatModel({ model: 'gpt-test', apiKey: 'sk-test', baseURL: process.env['MODEL_URL']! }),
    middlewares: [mcp],
    store: new FileSessionStore({ dir: process.env['STORE_DIR']! }),
    sessionId: 'register',
  });
  const events = await lastValueFrom(agent.reply('Register me.').pipe(toArray()));
  const ask = events.find((e) => e.type === 'REQUIRE_USER_CONFIRM');
  process.stdout.write(`${JSON.stringify({ end: events.at(-1), ask })}\n`);
  await agent.shutdown();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(String(e));
    process.exit(1);
  },
);
