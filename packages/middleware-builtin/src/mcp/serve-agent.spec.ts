import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { Agent } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, ofType, run, testServerModel } from '../__tests__/helpers.js';
import { waitFor } from './__tests__/servers.js';
import { McpMiddleware, serveAgentOverMcp, type ServedAgentOverHttp } from './index.js';

/** An agent served over Streamable HTTP, called by the SDK's own client and by another rxscope agent. */
describe('serveAgentOverMcp over Streamable HTTP', () => {
  jest.setTimeout(30_000);
  let server: OpenAITestServer;
  let served: ServedAgentOverHttp; // HTTP: its url is a string
  let support: Agent;
  let client: Client;

  beforeEach(async () => {
    server = await startOpenAITestServer();
    support = new Agent({
      name: 'support',
      sysPrompt: 'You answer questions about orders.',
      model: testServerModel(server),
    });
    served = await serveAgentOverMcp(support, { transport: { port: 0 } });
    client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  });
  afterEach(async () => {
    await client.close();
    await served.close();
    await closeTestServer(server);
  });

  it('offers one tool named after the agent, taking {message}', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: 'support',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    });
  });

  it('a call runs one reply: the result is its final text, streamed text arrives as progress notifications', async () => {
    server.enqueue({ text: ['Your order ', 'ships ', 'tomorrow.'], chunkDelayMs: 20 });
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'support', arguments: { message: 'Where is my order?' } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Your order ships tomorrow.' }] });
    expect(progress.map((p) => p.message)).toEqual(['Your order ', 'ships ', 'tomorrow.']);
    expect(progress.map((p) => p.progress)).toEqual([11, 17, 26]);
    const sent = server.requests[0]!.body.messages!;
    expect(sent.at(-1)).toMatchObject({ role: 'user', content: 'Where is my order?' });
    // The session, as a resource, holds the conversation.
    const resource = await client.readResource({ uri: 'agent://support/session' });
    const state = JSON.parse((resource.contents[0] as { text: string }).text) as {
      context: { content: { text?: string }[] }[];
    };
    expect(JSON.stringify(state)).toContain('Your order ships tomorrow.');
    expect(state.context.length).toBe(support.context.length);
  });

  it('cancelling the call cancels the reply and its model request', async () => {
    server.enqueue({ text: ['Looking it up'], fault: 'stall' });
    const controller = new AbortController();
    const progress: Progress[] = [];
    const call = client.callTool({ name: 'support', arguments: { message: 'Where?' } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => progress.push(p),
    });
    await waitFor(() => progress.length > 0, 'the first streamed text');
    controller.abort('the user gave up');
    await expect(call).rejects.toThrow();
    await waitFor(() => server.requests[0]!.clientClosed, 'the model request to be aborted');
    await waitFor(() => !support.busy, 'the agent to be idle');
  });

  it('a failing reply is an isError result that says why', async () => {
    server.enqueue({ fault: 'unauthorized' });
    const result = await client.callTool({ name: 'support', arguments: { message: 'hi' } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^The agent failed: /) }]);
  });

  it('another rxscope agent uses it as an MCP tool through McpMiddleware', async () => {
    const mcp = await McpMiddleware.connect({ servers: { helpdesk: { url: served.url } } });
    try {
      const front = new Agent({ name: 'front', model: testServerModel(server), middlewares: [mcp] });
      server.enqueue(
        { toolCalls: [{ name: 'helpdesk__support', input: { message: 'Where is order 42?' } }] }, // front
        { text: 'Order 42 ships tomorrow.' }, // support, called over MCP
        { text: 'It ships tomorrow.' }, // front again
      );
      const { events, end } = await run(front, 'Ask support about order 42.');
      expect(end.finishReason).toBe('completed');
      expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
        status: 'success',
        output: [{ type: 'text', text: 'Order 42 ships tomorrow.' }],
      });
      expect(
        ofType(events, 'TOOL_PROGRESS')
          .map((e) => e.message)
          .join(''),
      ).toBe('Order 42 ships tomorrow.');
      expect(server.requests[1]!.body.messages!.at(-1)).toMatchObject({ role: 'user', content: 'Where is order 42?' });
    } finally {
      await mcp.close();
    }
  });

  it('refuses other paths and foreign Host headers; a bad name is refused at once', async () => {
    const status = (path: string, host?: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(served.url);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path,
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...(host ? { host } : {}),
            },
          },
          (res) => (res.resume(), resolve(res.statusCode!)),
        );
        req.on('error', reject);
        req.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
          }),
        );
      });
    expect(await status('/other')).toBe(404);
    expect(await status('/mcp', 'evil.example:80')).toBe(403);
    await expect(serveAgentOverMcp(support, { name: 'has space', transport: { port: 0 } })).rejects.toThrow(
      /"has space" must be 1-64 letters/,
    );
  });
});
