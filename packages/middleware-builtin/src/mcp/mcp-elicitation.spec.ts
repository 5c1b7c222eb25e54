import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, AgentUsageError, type AgentEvent } from '@rxscope/core';
import { FileSessionStore } from '@rxscope/core/node';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, ofType, run, testServerModel } from '../__tests__/helpers.js';
import { EVERYTHING, everythingStdio, TSX } from './__tests__/servers.js';
import { McpMiddleware } from './index.js';

const FORM_TOOL = 'everything__trigger-elicitation-request';
const URL_TOOL = 'everything__trigger-url-elicitation';
const resultText = (events: readonly AgentEvent[]): string =>
  ofType(events, 'TOOL_RESULT_END')
    .filter((e) => !e.awaitingAnswer)
    .flatMap((e) => e.output.map((b) => (b.type === 'text' ? b.text : '')))
    .join('\n');

/**
 * Elicitation against the published server-everything over stdio: its elicitation tools exist
 * only for a client that declares the capability; a request suspends the reply with a
 * confirmation carrying the question, and the answer goes back to the server.
 */
describe('McpMiddleware: elicitation', () => {
  jest.setTimeout(60_000);
  let mcp: McpMiddleware;
  let server: OpenAITestServer;

  beforeAll(async () => {
    mcp = await McpMiddleware.connect({ servers: { everything: everythingStdio() } });
  });
  afterAll(() => mcp?.close());
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(() => closeTestServer(server));

  const agentWith = (middleware: McpMiddleware) =>
    new Agent({ model: testServerModel(server), middlewares: [middleware] });

  async function suspendOnForm(agent: Agent) {
    server.enqueue({ toolCalls: [{ name: FORM_TOOL, input: {} }] });
    const first = await run(agent, 'Register me.');
    expect(first.end.finishReason).toBe('awaiting_confirmation');
    const [ask] = ofType(first.events, 'REQUIRE_USER_CONFIRM');
    return { first, call: ask!.toolCalls[0]! };
  }

  it('declares the capability: the server offers its elicitation tools; without it they are hidden', async () => {
    const names = mcp.tools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([FORM_TOOL, URL_TOOL]));
    const plain = await McpMiddleware.connect({ servers: { everything: everythingStdio() }, elicitation: false });
    try {
      expect(plain.tools().map((t) => t.name)).not.toContain(FORM_TOOL);
    } finally {
      await plain.close();
    }
  });

  it('form mode: the reply suspends with the schema; a bad answer is refused naming the field; a good one reaches the server', async () => {
    const agent = agentWith(mcp);
    const { first, call } = await suspendOnForm(agent);
    expect(call).toMatchObject({
      name: FORM_TOOL,
      reason: 'Please provide inputs for the following fields:',
      question: {
        kind: 'mcp_elicitation',
        message: 'Please provide inputs for the following fields:',
        details: { server: 'everything', mode: 'form' },
        schema: { type: 'object', required: ['name'] },
      },
    });
    // The run that asked closed its block without a result; the call waits.
    expect(ofType(first.events, 'TOOL_RESULT_END')).toEqual([
      expect.objectContaining({ toolCallId: call.id, status: 'interrupted', awaitingAnswer: true }),
    ]);
    const pendingBefore = JSON.stringify(agent.saveState().pending);

    const refused = run(agent, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: call.id, confirmed: true, input: { name: 'Ada', integer: 'many' } }],
    });
    await expect(refused).rejects.toThrow(AgentUsageError);
    await expect(refused).rejects.toThrow(/integer: expected integer/);
    expect(JSON.stringify(agent.saveState().pending)).toBe(pendingBefore);

    server.enqueue({ text: 'Registered.' });
    const second = await run(agent, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: call.id, confirmed: true, input: { name: 'Ada Lovelace', check: true, integer: 7 } }],
    });
    expect(second.end.finishReason).toBe('completed');
    const text = resultText(second.events);
    expect(text).toContain('User provided the requested information');
    expect(text).toContain('- Name: Ada Lovelace');
    expect(text).toContain('- Favorite Integer: 7');
    // The model got the server's answer as the call's one result.
    const toolMessage = server.requests[1]!.body.messages!.find((m) => m.role === 'tool')!;
    expect(JSON.stringify(toolMessage.content)).toContain('Ada Lovelace');
  });

  it('decline and cancel are sent to the server as such', async () => {
    for (const [answer, expected] of [
      [{ confirmed: false, reason: 'not now' }, 'User declined'],
      [{ confirmed: false, cancelled: true }, 'User cancelled'],
    ] as const) {
      const agent = agentWith(mcp);
      const { call } = await suspendOnForm(agent);
      server.enqueue({ text: 'OK.' });
      const second = await run(agent, { type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: call.id, ...answer }] });
      expect(second.end.finishReason).toBe('completed');
      expect(resultText(second.events)).toContain(expected);
    }
  });

  it('URL mode: the question carries the URL; accepting sends accept', async () => {
    const agent = agentWith(mcp);
    server.enqueue({
      toolCalls: [{ name: URL_TOOL, input: { url: 'https://example.com/verify', message: 'Verify' } }],
    });
    const first = await run(agent, 'Verify me.');
    const [ask] = ofType(first.events, 'REQUIRE_USER_CONFIRM');
    const call = ask!.toolCalls[0]!;
    expect(call.question).toMatchObject({
      message: 'Verify',
      url: 'https://example.com/verify',
      details: { mode: 'url', server: 'everything' },
    });
    expect(call.question).not.toHaveProperty('schema');
    server.enqueue({ text: 'Verified.' });
    const second = await run(agent, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: call.id, confirmed: true }],
    });
    expect(second.end.finishReason).toBe('completed');
    expect(resultText(second.events)).toMatch(/"action": "accept"/);
  });

  it('across processes: a process suspends on the question and exits; another resumes from the file store', async () => {
    const storeDir = mkdtempSync(join(tmpdir(), 'rxscope-elicit-'));
    try {
      server.enqueue({ toolCalls: [{ name: FORM_TOOL, input: {} }] });
      // Asynchronous: the model server answering the child runs in this process.
      const { stdout: out } = await promisify(execFile)(
        process.execPath,
        [TSX, join(__dirname, '__tests__', 'elicit-and-exit.ts')],
        {
          env: { ...process.env, MODEL_URL: server.url, STORE_DIR: storeDir, EVERYTHING },
          encoding: 'utf8',
        },
      );
      const first = JSON.parse(out.trim().split('\n').at(-1)!) as {
        end: { finishReason: string };
        ask: { toolCalls: { id: string; question: { kind: string } }[] };
      };
      expect(first.end.finishReason).toBe('awaiting_confirmation');
      expect(first.ask.toolCalls[0]!.question.kind).toBe('mcp_elicitation');

      const agent = new Agent({
        model: testServerModel(server),
        middlewares: [mcp],
        store: new FileSessionStore({ dir: storeDir }),
        sessionId: 'register',
      });
      server.enqueue({ text: 'Registered.' });
      const second = await run(agent, {
        type: 'USER_CONFIRM_RESULT',
        results: [{ toolCallId: first.ask.toolCalls[0]!.id, confirmed: true, input: { name: 'Katherine Johnson' } }],
      });
      expect(second.end.finishReason).toBe('completed');
      expect(resultText(second.events)).toContain('- Name: Katherine Johnson');
    } finally {
      rmSync(storeDir, { recursive: true, force: true });
    }
  });

  it('resumed from the saved state over another connection (the first one gone): the call is made again and answered', async () => {
    const other = await McpMiddleware.connect({ servers: { everything: everythingStdio() } });
    const agent = agentWith(other);
    const { call } = await suspendOnForm(agent);
    const state = agent.saveState();
    await other.close(); // as when the process that asked has exited

    const restored = new Agent({ model: testServerModel(server), middlewares: [mcp], state });
    server.enqueue({ text: 'Registered.' });
    const second = await run(restored, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: call.id, confirmed: true, input: { name: 'Grace Hopper' } }],
    });
    expect(second.end.finishReason).toBe('completed');
    expect(resultText(second.events)).toContain('- Name: Grace Hopper');
    expect(ofType(second.events, 'REQUIRE_USER_CONFIRM')).toEqual([]);
  });
});
