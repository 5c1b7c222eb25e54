/**
 * rxscope and the Model Context Protocol, both ways.
 *
 *   node dist/main.js          an agent using the tools of server-everything (started over stdio)
 *   node dist/main.js serve    an agent served over MCP on stdin/stdout, for Claude Desktop, IDEs
 *                              or other agents (it uses server-everything's tools itself)
 *   node dist/main.js register the server asks the person a question (MCP elicitation): the reply
 *                              suspends, the person answers in the terminal, the reply goes on
 *
 * Without OPENAI_API_KEY the model is offline: rxscope's OpenAI-compatible test server replays a
 * scripted conversation (the MCP servers and tools are real). With it, OPENAI_MODEL (default
 * gpt-4o-mini) at OPENAI_BASE_URL (default OpenAI) answers.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  Agent,
  type AgentEvent,
  AgentUsageError,
  type ConfirmResult,
  type PendingToolCall,
  type ReplyInput,
} from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { McpMiddleware, serveAgentOverMcp } from '@rxscope/middleware-builtin/mcp';
import { lastValueFrom, tap, toArray } from 'rxjs';
import { REGISTER, startOfflineModel } from './offline.js';
import { answerInTerminal, type Ask } from './terminal-answer.js';

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
  } else if (argv[0] === 'register') {
    await register(agent);
  } else {
    process.stdout.write(`tools from MCP: ${agent.tools.map((t) => t.name).join(', ')}\n\n> ${QUESTION}\n\n`);
    await lastValueFrom(agent.reply(QUESTION).pipe(tap(show)), { defaultValue: undefined });
  }
  await mcp.close();
  await stop();
  return 0;
}

function show(e: AgentEvent): void {
  if (e.type === 'TOOL_CALL_START') process.stdout.write(`[calling ${e.name}]\n`);
  if (e.type === 'TOOL_RESULT_END' && !e.awaitingAnswer) {
    const shown = e.output.map((b) =>
      b.type === 'text' ? b.text : `<${b.mediaType}, ${b.data?.length ?? 0} base64 chars>`,
    );
    process.stdout.write(`[${e.status}] ${shown.join(' | ')}\n`);
  }
  if (e.type === 'TEXT_BLOCK_DELTA') process.stdout.write(e.delta);
  if (e.type === 'REPLY_END') process.stdout.write(`\n\n(${e.finishReason})\n`);
}

/**
 * The reply suspends when the server asks something; the person answers in the terminal and the
 * same reply goes on. An answer the schema refuses is asked again (nothing changed meanwhile).
 */
async function register(agent: Agent): Promise<void> {
  const rl = createInterface({ input: process.stdin });
  const lines = rl[Symbol.asyncIterator]();
  const ask: Ask = async (prompt) => {
    process.stdout.write(prompt);
    const next = await lines.next();
    if (next.done) throw new Error('stdin ended before the answer');
    return next.value;
  };
  const answerAll = async (calls: readonly PendingToolCall[]): Promise<ReplyInput> => {
    const results: ConfirmResult[] = [];
    for (const call of calls) {
      results.push(call.question ? await answerInTerminal(call, ask) : { toolCallId: call.id, confirmed: true });
    }
    return { type: 'USER_CONFIRM_RESULT', results };
  };
  process.stdout.write(`> ${REGISTER}\n\n`);
  let input: ReplyInput = REGISTER;
  let waiting: readonly PendingToolCall[] = [];
  for (;;) {
    let events: AgentEvent[];
    try {
      events = await lastValueFrom(agent.reply(input).pipe(tap(show), toArray()), { defaultValue: [] });
    } catch (e) {
      if (!(e instanceof AgentUsageError) || !waiting.length) throw e;
      process.stdout.write(`\n${e.message}\n`);
      input = await answerAll(waiting);
      continue;
    }
    const asked = events.find((e) => e.type === 'REQUIRE_USER_CONFIRM');
    if (!asked) break;
    waiting = asked.toolCalls;
    input = await answerAll(waiting);
  }
  rl.close();
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
