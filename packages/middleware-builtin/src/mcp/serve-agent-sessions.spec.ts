import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, OptionsError } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, testServerModel } from '../__tests__/helpers.js';
import { serveAgentOverMcp, type ServedAgentOverHttp } from './index.js';

/** MCP sessions of a served agent: one conversation each, 404 once ended, idle expiry. */
describe('serveAgentOverMcp: sessions', () => {
  jest.setTimeout(30_000);
  let server: OpenAITestServer;
  let served: ServedAgentOverHttp | undefined;
  const clients: Client[] = [];
  const agents = new Map<string, Agent>();

  const factory = (sessionId: string) => {
    const agent = new Agent({ name: 'support', model: testServerModel(server), sessionId });
    agents.set(sessionId, agent);
    return agent;
  };
  const connect = async (url: string) => {
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  };
  const ask = (client: Client, message: string) =>
    client.callTool({ name: 'support', arguments: { message } }) as Promise<{ content: { text: string }[] }>;
  /** A raw JSON-RPC POST naming a session, as any client sends it. */
  const post = (url: string, sessionId: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
    });

  beforeEach(async () => {
    server = await startOpenAITestServer();
    agents.clear();
  });
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((c) => c.close()));
    await served?.close();
    served = undefined;
    await closeTestServer(server);
  });

  it('with a factory, each MCP session is its own conversation, its agent made with the session id', async () => {
    served = await serveAgentOverMcp(factory, { name: 'support', transport: { port: 0 } });
    const a = await connect(served.url);
    const b = await connect(served.url);
    server.enqueue({ text: 'Order 1 ships today.' }, { text: 'Order 2 is lost.' });
    expect((await ask(a.client, 'About order 1?')).content[0]!.text).toBe('Order 1 ships today.');
    expect((await ask(b.client, 'About order 2?')).content[0]!.text).toBe('Order 2 is lost.');
    expect([...agents.keys()].sort()).toEqual([a.transport.sessionId, b.transport.sessionId].sort());
    // The second session's model request holds its own message only.
    const second = JSON.stringify(server.requests[1]!.body.messages);
    expect(second).toContain('About order 2?');
    expect(second).not.toContain('About order 1?');
    expect(agents.get(a.transport.sessionId!)!.context.length).toBe(2);
  });

  it('a request naming an unknown or ended session is answered 404 with a JSON-RPC error', async () => {
    served = await serveAgentOverMcp(factory, { name: 'support', transport: { port: 0 } });
    const unknown = await post(served.url, 'no-such-session');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 }, id: null });

    const { transport } = await connect(served.url);
    const id = transport.sessionId!;
    expect((await post(served.url, id)).status).toBe(200);
    await transport.terminateSession(); // DELETE: the client ends its session
    expect((await post(served.url, id)).status).toBe(404);
  });

  it('a session with no request open for idleTimeoutMs is ended; a running call keeps it alive', async () => {
    served = await serveAgentOverMcp(factory, { name: 'support', transport: { port: 0 }, idleTimeoutMs: 300 });
    const { client, transport } = await connect(served.url);
    // The call lasts longer than the idle time: the session stays.
    server.enqueue({ text: ['a', 'b', 'c', 'd', 'e'], chunkDelayMs: 120 });
    expect((await ask(client, 'Slowly')).content[0]!.text).toBe('abcde');
    expect((await client.listTools()).tools).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 600));
    const err = await client.listTools().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(404);
    expect((await post(served.url, transport.sessionId!)).status).toBe(404);
    // A new session starts a new conversation.
    const fresh = await connect(served.url);
    expect(fresh.transport.sessionId).not.toBe(transport.sessionId);
    expect((await fresh.client.listTools()).tools).toHaveLength(1);
  });

  it('one agent given: every session shares its conversation (as before)', async () => {
    const shared = new Agent({ name: 'support', model: testServerModel(server) });
    served = await serveAgentOverMcp(shared, { transport: { port: 0 } });
    const a = await connect(served.url);
    const b = await connect(served.url);
    server.enqueue({ text: 'One.' }, { text: 'Two.' });
    await ask(a.client, 'First');
    await ask(b.client, 'Second');
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('First');
    expect(shared.context.length).toBe(4);
  });

  it('refuses bad options at once, with "did you mean"', async () => {
    const refusal = (options: object, agent: unknown = factory) =>
      serveAgentOverMcp(agent as never, { name: 'support', transport: { port: 0 }, ...options } as never).then(
        () => undefined,
        (e: unknown) => e,
      );
    const typo = await refusal({ idleTimeout: 5 });
    expect(typo).toBeInstanceOf(OptionsError);
    expect((typo as OptionsError).code).toBe('unknown_option');
    expect((typo as Error).message).toMatch(/did you mean "idleTimeoutMs"/);
    await expect(refusal({ idleTimeoutMs: -1 })).resolves.toMatchObject({ code: 'invalid_option' });
    await expect(refusal({ name: undefined })).resolves.toMatchObject({
      message: expect.stringMatching(/with an agent factory, give the tool a `name`/),
    });
    await expect(refusal({}, 'support')).resolves.toMatchObject({ code: 'invalid_option' });
  });
});
