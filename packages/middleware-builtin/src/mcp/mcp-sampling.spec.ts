import { Agent, type AgentEvent, type Middleware, OptionsError } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, ofType, run, testServerModel } from '../__tests__/helpers.js';
import { everythingStdio } from './__tests__/servers.js';
import { McpMiddleware, type McpSamplingOptions } from './index.js';

const TOOL = 'everything__trigger-sampling-request';
const resultOf = (events: readonly AgentEvent[]) =>
  ofType(events, 'TOOL_RESULT_END').filter((e) => !e.awaitingAnswer)[0]!;
const textOfResult = (events: readonly AgentEvent[]) =>
  resultOf(events)
    .output.map((b) => (b.type === 'text' ? b.text : ''))
    .join('\n');

/**
 * Sampling against the published server-everything over stdio: its `trigger-sampling-request`
 * asks the client's model; the agent's model (the OpenAI-compatible test server, through the
 * real adapter) answers through the agent's onModelCall chain.
 */
describe('McpMiddleware: sampling', () => {
  jest.setTimeout(60_000);
  let server: OpenAITestServer;
  const opened: McpMiddleware[] = [];
  const connect = async (sampling?: McpSamplingOptions | false) => {
    const mcp = await McpMiddleware.connect({
      servers: { everything: everythingStdio() },
      ...(sampling !== undefined ? { sampling } : {}),
    });
    opened.push(mcp);
    return mcp;
  };
  let ask: McpMiddleware;

  beforeAll(async () => {
    ask = await connect();
  });
  afterAll(() => Promise.all(opened.map((m) => m.close())));
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(() => closeTestServer(server));

  /** Records the model calls that pass the agent's onModelCall chain. */
  const recorder = () => {
    const seen: string[] = [];
    const middleware: Middleware = {
      onModelCall: (_agent, _ctx, input, next) => {
        seen.push(
          input.messages.map((m) => m.content.map((b) => (b.type === 'text' ? b.text : '')).join('')).join(' | '),
        );
        return next(input);
      },
    };
    return { seen, middleware };
  };

  it("default policy 'ask': the reply suspends; once confirmed the agent's model answers through onModelCall", async () => {
    const { seen, middleware } = recorder();
    const agent = new Agent({ model: testServerModel(server), middlewares: [middleware, ask] });
    server.enqueue({ toolCalls: [{ name: TOOL, input: { prompt: 'a haiku about rivers', maxTokens: 60 } }] });
    const first = await run(agent, 'Sample something.');
    expect(first.end.finishReason).toBe('awaiting_confirmation');
    const call = ofType(first.events, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls[0]!;
    expect(call.question).toMatchObject({
      kind: 'mcp_sampling',
      message: expect.stringContaining('MCP server "everything" asks to use the model (up to 60 tokens)'),
      details: { server: 'everything', maxTokens: 60, systemPrompt: 'You are a helpful test server.' },
    });
    expect(server.requests).toHaveLength(1); // nothing sampled before the person said yes

    server.enqueue({ text: 'Water finds its way.' }, { text: 'The server got its haiku.' });
    const second = await run(agent, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: call.id, confirmed: true }],
    });
    expect(second.end.finishReason).toBe('completed');
    expect(resultOf(second.events).status).toBe('success');
    expect(textOfResult(second.events)).toContain('Water finds its way.');
    // The sampling request on the wire: the server's system prompt and message, its token limit, no tools.
    const sampled = server.requests[1]!.body;
    expect(sampled.messages).toEqual([
      { role: 'system', content: 'You are a helpful test server.' },
      { role: 'user', content: 'Resource trigger-sampling-request context: a haiku about rivers' },
    ]);
    expect(sampled.max_tokens ?? sampled.max_completion_tokens).toBe(60);
    expect(sampled.tools ?? []).toEqual([]);
    expect(seen).toHaveLength(3);
    expect(seen[1]).toContain('a haiku about rivers');
  });

  it('declined by the person: the server is told so, the call fails with the reason, the reply goes on', async () => {
    const agent = new Agent({ model: testServerModel(server), middlewares: [ask] });
    server.enqueue({ toolCalls: [{ name: TOOL, input: { prompt: 'x' } }] });
    const first = await run(agent, 'Sample.');
    const call = ofType(first.events, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls[0]!;
    server.enqueue({ text: 'Fine.' });
    const second = await run(agent, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: call.id, confirmed: false, reason: 'not on my budget' }],
    });
    expect(second.end.finishReason).toBe('completed');
    expect(resultOf(second.events).status).toBe('error');
    expect(textOfResult(second.events)).toContain('declined by the user: not on my budget');
    expect(server.requests).toHaveLength(2); // the model was never sampled
  });

  it("'allow' samples at once; 'deny' and a request over the token cap are declined with the reason", async () => {
    const allow = await connect({ policy: 'allow', maxTokens: 500 });
    const agent = new Agent({ model: testServerModel(server), middlewares: [allow] });
    server.enqueue(
      { toolCalls: [{ name: TOOL, input: { prompt: 'hello' } }] },
      { text: 'Sampled.' },
      { text: 'Done.' },
    );
    const allowed = await run(agent, 'Sample.');
    expect(allowed.end.finishReason).toBe('completed');
    expect(textOfResult(allowed.events)).toContain('Sampled.');

    const capped = new Agent({ model: testServerModel(server), middlewares: [allow] });
    server.enqueue({ toolCalls: [{ name: TOOL, input: { prompt: 'long', maxTokens: 4000 } }] }, { text: 'Too long.' });
    const over = await run(capped, 'Sample a lot.');
    expect(over.end.finishReason).toBe('completed');
    expect(resultOf(over.events).status).toBe('error');
    expect(textOfResult(over.events)).toContain(
      'asks for up to 4000 tokens, over the cap of 500 set for server "everything"',
    );

    const deny = await connect({ policy: 'deny' });
    const denied = new Agent({ model: testServerModel(server), middlewares: [deny] });
    server.enqueue({ toolCalls: [{ name: TOOL, input: { prompt: 'x' } }] }, { text: 'Denied.' });
    const refused = await run(denied, 'Sample.');
    expect(textOfResult(refused.events)).toContain('its policy for server "everything" is \'deny\'');
    expect(server.requests.filter((r) => (r.body.tools ?? []).length === 0)).toHaveLength(1); // only the allowed sampling
  });

  it('sampling: false hides the tool; a misspelt or wrong option is refused before anything starts', async () => {
    const none = await connect(false);
    expect(none.tools().map((t) => t.name)).not.toContain(TOOL);
    expect(ask.tools().map((t) => t.name)).toContain(TOOL);
    await expect(McpMiddleware.connect({ servers: {}, sampling: { polcy: 'allow' } as never })).rejects.toThrow(
      /unknown option "polcy" of McpMiddleware.connect.sampling; did you mean "policy"\?/,
    );
    await expect(McpMiddleware.connect({ servers: {}, sampling: { policy: 'maybe' as never } })).rejects.toThrow(
      OptionsError,
    );
    await expect(McpMiddleware.connect({ servers: {}, sampling: { maxTokens: -1 } })).rejects.toThrow(
      /positive integer/,
    );
  });
});
