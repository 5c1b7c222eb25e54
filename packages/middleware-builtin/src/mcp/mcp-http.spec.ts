import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type AgentEvent } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, ofType, run, start, testServerModel, textOf } from '../__tests__/helpers.js';
import {
  EVERYTHING,
  filesystemStdio,
  freePort,
  PROBE,
  probeLog,
  type ServerProcess,
  startServerProcess,
  TSX,
  waitFor,
} from './__tests__/servers.js';
import { type Bridge, bridgeStdioOverHttp } from './__tests__/stdio-http-bridge.js';
import { McpMiddleware } from './index.js';

const resultOf = (events: readonly AgentEvent[], i = 0) => ofType(events, 'TOOL_RESULT_END')[i]!;

/** server-everything in its own Streamable HTTP mode, on a free port. */
async function everythingOverHttp(): Promise<ServerProcess> {
  const port = await freePort();
  const proc = await startServerProcess([EVERYTHING, 'streamableHttp'], /listening on port (\d+)/, {
    PORT: String(port),
  });
  return { ...proc, url: `http://127.0.0.1:${proc.url}/mcp` };
}

/**
 * McpMiddleware over Streamable HTTP: server-everything in its HTTP mode, server-filesystem
 * (stdio only) behind an HTTP bridge built from the SDK's transports, and the probe server in
 * its HTTP mode. The agent talks to the real OpenAIChatModel over the OpenAI-compatible test server.
 */
describe('McpMiddleware over Streamable HTTP', () => {
  jest.setTimeout(60_000);
  let dir: string;
  let probeFile: string;
  let everything: ServerProcess;
  let probe: ServerProcess;
  let files: Bridge;
  let mcp: McpMiddleware;
  let server: OpenAITestServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxscope-mcp-http-'));
    probeFile = join(dir, 'probe.log');
    writeFileSync(join(dir, 'notes.txt'), 'buy milk\n');
    [everything, probe, files] = await Promise.all([
      everythingOverHttp(),
      startServerProcess([TSX, PROBE, '--http'], /listening (http:\S+)/, { PROBE_LOG: probeFile }),
      bridgeStdioOverHttp(filesystemStdio(dir)),
    ]);
    mcp = await McpMiddleware.connect({
      servers: {
        everything: { url: everything.url },
        files: { url: files.url },
        probe: { url: probe.url, headers: { authorization: 'Bearer probe-token' } },
      },
    });
  });
  afterAll(async () => {
    await mcp?.close();
    await Promise.allSettled([everything?.kill(), probe?.kill(), files?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(() => closeTestServer(server));

  const agentWith = (middleware: McpMiddleware) =>
    new Agent({ model: testServerModel(server), middlewares: [middleware] });

  it('lists the tools of all three servers and sends the configured headers', () => {
    const names = mcp.tools().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['everything__get-sum', 'files__read_text_file', 'files__list_directory', 'probe__wait']),
    );
    expect(probeLog(probeFile)).toContain('new session, authorization: Bearer probe-token');
    expect(mcp.status()).toEqual({ everything: 'connected', files: 'connected', probe: 'connected' });
  });

  it('calls tools of every server from one reply: results on the wire, images as images', async () => {
    server.enqueue(
      {
        toolCalls: [
          { name: 'everything__get-sum', input: { a: 20, b: 22 } },
          { name: 'files__read_text_file', input: { path: join(dir, 'notes.txt') } },
          { name: 'everything__get-tiny-image', input: {} },
        ],
      },
      { text: 'All done.' },
    );
    const { events, end } = await run(agentWith(mcp));
    expect(end.finishReason).toBe('completed');
    const byName = new Map(
      ofType(events, 'TOOL_RESULT_START').map((s) => [
        s.name,
        ofType(events, 'TOOL_RESULT_END').find((e) => e.toolCallId === s.toolCallId)!,
      ]),
    );
    expect(byName.get('everything__get-sum')).toMatchObject({
      status: 'success',
      output: [{ type: 'text', text: 'The sum of 20 and 22 is 42.' }],
    });
    expect(byName.get('files__read_text_file')).toMatchObject({
      status: 'success',
      // read_text_file has an outputSchema: its structured value is the result.
      output: [{ type: 'text', text: JSON.stringify({ content: 'buy milk\n' }) }],
    });
    expect(byName.get('everything__get-tiny-image')!.output).toContainEqual({
      type: 'data',
      mediaType: 'image/png',
      data: expect.stringMatching(/^iVBOR/),
    });
    const toolMessages = server.requests[1]!.body.messages!.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolMessages).toEqual(
      expect.arrayContaining(['The sum of 20 and 22 is 42.', JSON.stringify({ content: 'buy milk\n' })]),
    );
  });

  it('writes through the bridged filesystem server', async () => {
    const target = join(dir, 'out.txt');
    server.enqueue(
      { toolCalls: [{ name: 'files__write_file', input: { path: target, content: 'over http' } }] },
      { text: 'ok' },
    );
    const { events } = await run(agentWith(mcp));
    expect(resultOf(events)).toMatchObject({ status: 'success' });
    expect(readFileSync(target, 'utf8')).toBe('over http');
  });

  it('streams progress notifications of a long-running call', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'everything__trigger-long-running-operation', input: { duration: 1, steps: 4 } }] },
      { text: 'ok' },
    );
    const { events } = await run(agentWith(mcp));
    const progress = ofType(events, 'TOOL_PROGRESS').map(({ message, progress: done, total }) => ({
      message,
      done,
      total,
    }));
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.slice(0, 3)).toEqual([1, 2, 3].map((n) => ({ message: `progress ${n}/4`, done: n, total: 4 })));
    // Progress is not part of the result.
    expect(ofType(events, 'TOOL_RESULT_DELTA').map((e) => e.delta)).toEqual([
      'Long running operation completed. Duration: 1 seconds, Steps: 4.',
    ]);
    expect(resultOf(events).output).toEqual([
      { type: 'text', text: 'Long running operation completed. Duration: 1 seconds, Steps: 4.' },
    ]);
  });

  it('unsubscribing mid-call cancels the MCP request: the server receives the cancellation', async () => {
    server.enqueue({ toolCalls: [{ name: 'probe__wait', input: { ms: 30_000 } }] });
    const reply = start(agentWith(mcp));
    await waitFor(() => ofType(reply.events, 'TOOL_PROGRESS').length > 0, 'the first progress notification');
    reply.sub.unsubscribe();
    await waitFor(
      () => probeLog(probeFile).some((l) => l.startsWith('cancelled wait')),
      'the server to log the cancellation',
    );
  });

  it('a changed tool list is read again over HTTP', async () => {
    server.enqueue({ toolCalls: [{ name: 'probe__add_tool', input: { name: 'remote_late' } }] }, { text: 'added' });
    await run(agentWith(mcp));
    await waitFor(() => mcp.tools().some((t) => t.name === 'probe__remote_late'), 'probe__remote_late among the tools');
  });

  it('an agent that exists before the tool list changes offers the new tool at its next model request', async () => {
    const agent = agentWith(mcp);
    server.enqueue({ toolCalls: [{ name: 'probe__add_tool', input: { name: 'remote_fresh' } }] }, { text: 'added' });
    await run(agent);
    await waitFor(
      () => mcp.tools().some((t) => t.name === 'probe__remote_fresh'),
      'probe__remote_fresh among the tools',
    );
    server.enqueue({ toolCalls: [{ name: 'probe__remote_fresh', input: {} }] }, { text: 'It said hello.' });
    const { events } = await run(agent, 'Call the new tool.');
    expect(server.requests[2]!.body.tools!.map((t) => t.function.name)).toContain('probe__remote_fresh');
    expect(resultOf(events)).toMatchObject({
      status: 'success',
      output: [{ type: 'text', text: 'hello from remote_fresh' }],
    });
  });

  it('agent.shutdown() ends the HTTP session on the server', async () => {
    const sessionsClosed = () => probeLog(probeFile).filter((l) => l.startsWith('session closed')).length;
    const before = sessionsClosed();
    const own = await McpMiddleware.connect({ servers: { probe: { url: probe.url } } });
    server.enqueue({ toolCalls: [{ name: 'probe__wait', input: { ms: 10 } }] }, { text: 'Waited.' });
    const agent = agentWith(own);
    expect((await run(agent)).end.finishReason).toBe('completed');
    expect(sessionsClosed()).toBe(before);
    await agent.shutdown();
    expect(own.status()).toEqual({ probe: 'closed' });
    await waitFor(() => sessionsClosed() === before + 1, 'the server to close the session');
  });

  it('a server process killed mid-call: an error result and a disconnect event, no hang', async () => {
    const doomed = await everythingOverHttp();
    const dying = await McpMiddleware.connect({ servers: { doomed: { url: doomed.url } } });
    try {
      server.enqueue(
        { toolCalls: [{ name: 'doomed__trigger-long-running-operation', input: { duration: 60, steps: 60 } }] },
        { text: 'The server crashed.' },
      );
      const reply = start(agentWith(dying));
      await waitFor(() => ofType(reply.events, 'TOOL_PROGRESS').length > 0, 'the first progress notification');
      await doomed.kill('SIGKILL');
      await waitFor(reply.done, 'the reply to end', 20_000);
      expect(reply.events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
      expect(resultOf(reply.events)).toMatchObject({
        status: 'error',
        output: [{ type: 'text', text: expect.stringContaining('MCP server "doomed"') }],
      });
      expect(ofType(reply.events, 'CUSTOM').filter((e) => e.name === 'mcp_server_disconnected')).toHaveLength(1);
      expect(textOf(reply.events)).toBe('The server crashed.');
      expect(dying.status().doomed).toMatch(/^the server stopped answering/);
    } finally {
      await dying.close();
      await doomed.kill();
    }
  });

  it('an unreachable URL is refused at connect, naming the server', async () => {
    const port = await freePort();
    await expect(McpMiddleware.connect({ servers: { gone: { url: `http://127.0.0.1:${port}/mcp` } } })).rejects.toThrow(
      new RegExp(`MCP server "gone" \\(http://127.0.0.1:${port}/mcp\\) could not be connected`),
    );
  });
});
