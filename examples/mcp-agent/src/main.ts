/**
 * rxscope and the Model Context Protocol, both ways.
 *
 *   node dist/main.js          an agent using the tools of server-everything (started over stdio)
 *   node dist/main.js serve    an agent served over MCP on stdin/stdout, for Claude Desktop, IDEs
 *                              or other agents (it uses server-everything's tools itself)
 *
 * Without OPENAI_API_KEY the model is offline: rxscope's OpenAI-compatible test server replays a
 * scripted conversation (the MCP servers and tools are real). With it, OPENAI_MODEL (default
 * gpt-4o-mini) at OPENAI_BASE_URL (default OpenAI) answers.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Agent } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { McpMiddleware, serveAgentOverMcp } from '@rxscope/middleware-builtin/mcp';
import { lastValueFrom, tap } from 'rxjs';
import { startOfflineModel } from './offline.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const QUESTION = 'What is 2 + 3? And show me the MCP logo.';

async function model(): Promise<{ model: OpenAIChatModel; stop: () => Promise<void> }> {
  const env = process.env;
  if (env['OPENAI_API_KEY']) {
    const baseURL = env['OPENAI_BASE_URL'] || undefined;
    return {
      model: new OpenAIChatModel({
        model: env['OPENAI_MODEL'] || 'gpt-4o-mini',
        apiKey: env['OPENAI_API_KEY'],
        ...(baseURL ? { baseURL } : {}),
      }),
      stop: async () => {},
    };
  }
  const server = await startOfflineModel();
  return {
    model: new OpenAIChatModel({ model: 'offline-scripted', apiKey: 'offline', baseURL: server.url }),
    stop: () => server.close(),
  };
}

async function main(argv: readonly string[]): Promise<number> {
  const serve = argv[0] === 'serve';
  // Over stdio, stdout belongs to the protocol: the servers' logs go nowhere, ours to stderr.
  const mcp = await McpMiddleware.connect({
    servers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' } },
  });
  const { model: chatModel, stop } = await model();
  const agent = new Agent({
    name: 'calculator',
    sysPrompt:
      'You answer with the tools of the "everything" MCP server: get-sum for additions, get-tiny-image for the logo.',
    model: chatModel,
    middlewares: [mcp],
    // Served over MCP nobody can answer a confirmation: these tools are allowed.
    permissions: { mode: 'bypass' },
  });

  if (serve) {
    const served = await serveAgentOverMcp(agent, { name: 'calculator', transport: 'stdio' });
    process.stderr.write(`serving the "${served.toolName}" agent over MCP on stdio\n`);
    await new Promise<void>((resolve) => process.stdin.once('close', resolve));
    await served.close();
  } else {
    process.stdout.write(`tools from MCP: ${agent.tools.map((t) => t.name).join(', ')}\n\n> ${QUESTION}\n\n`);
    await lastValueFrom(
      agent.reply(QUESTION).pipe(
        tap((e) => {
          if (e.type === 'TOOL_CALL_START') process.stdout.write(`[calling ${e.name}]\n`);
          if (e.type === 'TOOL_RESULT_END') {
            const shown = e.output.map((b) =>
              b.type === 'text' ? b.text : `<${b.mediaType}, ${b.data?.length ?? 0} base64 chars>`,
            );
            process.stdout.write(`[${e.status}] ${shown.join(' | ')}\n`);
          }
          if (e.type === 'TEXT_BLOCK_DELTA') process.stdout.write(e.delta);
          if (e.type === 'REPLY_END') process.stdout.write(`\n\n(${e.finishReason})\n`);
        }),
      ),
      { defaultValue: undefined },
    );
  }
  await mcp.close();
  await stop();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
