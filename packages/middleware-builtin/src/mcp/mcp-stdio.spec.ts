import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type AgentEvent, type Tool } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer, type RecordedContentPart } from '@rxscope/core/testing/node';
import { closeTestServer, ofType, run, start, testServerModel, textOf } from '../__tests__/helpers.js';
import { EVERYTHING, everythingStdio, filesystemStdio, probeLog, probeStdio, waitFor } from './__tests__/servers.js';
import { McpMiddleware, type McpServerDisconnectedValue } from './index.js';

const toolNamed = (mcp: McpMiddleware, name: string): Tool => {
  const tool = mcp.tools().find((t) => t.name === name);
  if (!tool)
    throw new Error(
      `no tool ${name} among ${mcp
        .tools()
        .map((t) => t.name)
        .join(', ')}`,
    );
  return tool;
};
const resultOf = (events: readonly AgentEvent[], i = 0) => ofType(events, 'TOOL_RESULT_END')[i]!;

/**
 * McpMiddleware against real MCP servers started over stdio: the published server-everything
 * and server-filesystem, and a probe server for what those cannot show (cancellations received).
 * The agent talks to the real OpenAIChatModel over the OpenAI-compatible test server.
 */
describe('McpMiddleware over stdio', () => {
  jest.setTimeout(60_000);
  let dir: string;
  let probeFile: string;
  let mcp: McpMiddleware;
  let server: OpenAITestServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxscope-mcp-'));
    probeFile = join(dir, 'probe.log');
    writeFileSync(join(dir, 'notes.txt'), 'buy milk\n');
    mcp = await McpMiddleware.connect({
      servers: { everything: everythingStdio(), files: filesystemStdio(dir), probe: probeStdio(probeFile) },
    });
  });
  afterAll(async () => {
    await mcp?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(() => closeTestServer(server));

  const agentWith = (middleware: McpMiddleware, options: Partial<ConstructorParameters<typeof Agent>[0]> = {}) =>
    new Agent({ model: testServerModel(server), middlewares: [middleware], ...options });

  it('offers every server tool as <server>__<tool>, read-only/concurrency-safe from the annotations', () => {
    const names = mcp.tools().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'everything__echo',
        'everything__get-sum',
        'files__read_text_file',
        'files__write_file',
        'probe__wait',
      ]),
    );
    expect(toolNamed(mcp, 'everything__get-sum')).toMatchObject({ readOnly: true, concurrencySafe: true });
    // readOnlyHint without idempotentHint: read-only, but not run in parallel.
    expect(toolNamed(mcp, 'files__read_text_file')).toMatchObject({ readOnly: true, concurrencySafe: false });
    expect(toolNamed(mcp, 'files__write_file')).toMatchObject({ readOnly: false, concurrencySafe: false });
    expect(mcp.originOf(toolNamed(mcp, 'files__write_file'))).toEqual({ server: 'files', tool: 'write_file' });
    expect(mcp.status()).toEqual({ everything: 'connected', files: 'connected', probe: 'connected' });
  });

  it('the model sees the JSON Schema, calls the tool, and gets the server result on the wire', async () => {
    server.enqueue({ toolCalls: [{ name: 'everything__get-sum', input: { a: 2, b: 3 } }] }, { text: 'It is 5.' });
    const { events, end } = await run(agentWith(mcp), 'What is 2 + 3?');
    expect(end.finishReason).toBe('completed');
    expect(resultOf(events)).toMatchObject({
      status: 'success',
      output: [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }],
    });
    const declared = server.requests[0]!.body.tools!.find((t) => t.function.name === 'everything__get-sum')!;
    expect(declared.function.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(declared.function.parameters).not.toHaveProperty('$schema');
    expect(server.requests[1]!.body.messages!.find((m) => m.role === 'tool')!.content).toBe('The sum of 2 and 3 is 5.');
  });

  it('arguments that fail the JSON Schema get an error result naming the field; the model corrects itself', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'everything__get-sum', input: { a: 'two', b: 3 } }] },
      { toolCalls: [{ name: 'everything__get-sum', input: { a: 2, b: 3 } }] },
      { text: 'Done.' },
    );
    const { events, end } = await run(agentWith(mcp));
    expect(end.finishReason).toBe('completed');
    const bad = resultOf(events, 0);
    expect(bad.status).toBe('error');
    expect(bad.output[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/everything__get-sum[\s\S]*- a: must be number/),
    });
    expect(resultOf(events, 1)).toMatchObject({ status: 'success' });
  });

  it('server-filesystem: writes ask for confirmation in strict mode, reads do not; the file is really written', async () => {
    const target = join(dir, 'todo.txt');
    server.enqueue(
      { toolCalls: [{ name: 'files__read_text_file', input: { path: join(dir, 'notes.txt') } }] },
      { toolCalls: [{ name: 'files__write_file', input: { path: target, content: 'buy milk\nbuy bread\n' } }] },
      { text: 'Written.' },
    );
    const agent = agentWith(mcp, { permissions: { mode: 'strict' } });
    const first = await run(agent, 'Copy my notes and add bread.');
    // read_text_file has an outputSchema: its structured value is the result.
    expect(resultOf(first.events)).toMatchObject({ status: 'success', value: { content: 'buy milk\n' } });
    expect(first.end.finishReason).toBe('awaiting_confirmation');
    const [ask] = ofType(first.events, 'REQUIRE_USER_CONFIRM');
    expect(ask!.toolCalls).toEqual([expect.objectContaining({ name: 'files__write_file' })]);
    const second = await run(agent, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: ask!.toolCalls[0]!.id, confirmed: true }],
    });
    expect(second.end.finishReason).toBe('completed');
    expect(resultOf(second.events)).toMatchObject({ status: 'success' });
    expect(readFileSync(target, 'utf8')).toBe('buy milk\nbuy bread\n');
  });

  it('a path outside the allowed folder is refused by the server: an error result, the reply goes on', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'files__read_text_file', input: { path: '/etc/hostname' } }] },
      { text: 'Not allowed.' },
    );
    const { events, end } = await run(agentWith(mcp));
    expect(end.finishReason).toBe('completed');
    expect(resultOf(events)).toMatchObject({
      status: 'error',
      output: [{ type: 'text', text: expect.stringMatching(/denied|outside/i) }],
    });
    expect(textOf(events)).toBe('Not allowed.');
  });

  it('an image result becomes a data block, and the model receives it as an image', async () => {
    server.enqueue({ toolCalls: [{ name: 'everything__get-tiny-image', input: {} }] }, { text: 'A logo.' });
    const { events } = await run(agentWith(mcp));
    const output = resultOf(events).output;
    expect(output).toEqual([
      { type: 'text', text: "Here's the image you requested:" },
      { type: 'data', mediaType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) },
      { type: 'text', text: 'The image above is the MCP logo.' },
    ]);
    const parts = server.requests[1]!.body.messages!.flatMap((m) =>
      Array.isArray(m.content) ? (m.content as RecordedContentPart[]) : [],
    );
    expect(
      parts.some((p) => p.type === 'image_url' && p.image_url!.url.startsWith('data:image/png;base64,iVBORw0KGgo')),
    ).toBe(true);
  });

  it('embedded resources: text as text with its URI, a binary blob as a data block', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'everything__get-resource-reference', input: { resourceType: 'Text', resourceId: 2 } }] },
      { toolCalls: [{ name: 'everything__get-resource-reference', input: { resourceType: 'Blob', resourceId: 3 } }] },
      { text: 'Got both.' },
    );
    const { events } = await run(agentWith(mcp));
    expect(resultOf(events, 0).output).toEqual([
      {
        type: 'text',
        text: expect.stringContaining('[resource demo://resource/dynamic/text/2 (text/plain)]\nResource 2:'),
      },
    ]);
    expect(resultOf(events, 1).output).toContainEqual({
      type: 'data',
      mediaType: expect.any(String),
      data: expect.any(String),
      url: 'demo://resource/dynamic/blob/3',
    });
  });

  it('progress notifications stream as live progress before the result, and are not part of it', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'everything__trigger-long-running-operation', input: { duration: 1, steps: 4 } }] },
      { text: 'ok' },
    );
    const { events } = await run(agentWith(mcp));
    const deltas = ofType(events, 'TOOL_RESULT_DELTA').map((e) => e.delta);
    // The SDK drops a progress notification that is handled after the response (the last one may race it).
    const progress = ofType(events, 'TOOL_PROGRESS').map(({ message, progress: done, total }) => ({
      message,
      done,
      total,
    }));
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress).toEqual(
      [1, 2, 3, 4].map((n) => ({ message: `progress ${n}/4`, done: n, total: 4 })).slice(0, progress.length),
    );
    expect(deltas).toEqual(['Long running operation completed. Duration: 1 seconds, Steps: 4.']);
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
    const started = probeLog(probeFile)
      .find((l) => l.startsWith('started wait'))!
      .split(' ')[2];
    expect(probeLog(probeFile)).toContainEqual(expect.stringMatching(new RegExp(`^cancelled wait ${started}: `)));
    // The connection is still usable afterwards.
    server.enqueue({ toolCalls: [{ name: 'probe__wait', input: { ms: 0 } }] }, { text: 'ok' });
    const { events } = await run(agentWith(mcp));
    expect(resultOf(events)).toMatchObject({ status: 'success', output: [{ type: 'text', text: 'waited 0 ms' }] });
  });

  it('a result with isError becomes an error result carrying the server text', async () => {
    server.enqueue({ toolCalls: [{ name: 'probe__fail', input: {} }] }, { text: 'Sorry.' });
    const { events, end } = await run(agentWith(mcp));
    expect(end.finishReason).toBe('completed');
    expect(resultOf(events)).toMatchObject({
      status: 'error',
      output: [{ type: 'text', text: expect.stringContaining('the disk is full') }],
    });
  });

  it('a server process killed mid-call: an error result, a disconnect event, the reply goes on; later calls fail at once', async () => {
    const pidFile = join(dir, 'everything.pid');
    const dying = await McpMiddleware.connect({
      servers: {
        doomed: {
          command: '/bin/sh',
          args: ['-c', `echo $$ > '${pidFile}'; exec '${process.execPath}' '${EVERYTHING}' stdio`],
          stderr: 'ignore',
        },
      },
    });
    try {
      server.enqueue(
        { toolCalls: [{ name: 'doomed__trigger-long-running-operation', input: { duration: 60, steps: 60 } }] },
        { text: 'The server crashed.' },
      );
      const reply = start(agentWith(dying));
      await waitFor(() => ofType(reply.events, 'TOOL_PROGRESS').length > 0, 'the first progress notification');
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
      await waitFor(reply.done, 'the reply to end', 20_000);
      const end = reply.events.at(-1)!;
      expect(end).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
      expect(resultOf(reply.events)).toMatchObject({
        status: 'error',
        output: [{ type: 'text', text: expect.stringContaining('MCP server "doomed" is not connected') }],
      });
      const [disconnected] = ofType(reply.events, 'CUSTOM').filter((e) => e.name === 'mcp_server_disconnected');
      expect(disconnected!.value).toEqual<McpServerDisconnectedValue>({
        server: 'doomed',
        tool: 'trigger-long-running-operation',
        toolCallId: resultOf(reply.events).toolCallId,
        reason: 'the server closed the connection',
      });
      expect(textOf(reply.events)).toBe('The server crashed.');
      expect(dying.status()).toEqual({ doomed: 'the server closed the connection' });

      server.enqueue({ toolCalls: [{ name: 'doomed__echo', input: { message: 'hi' } }] }, { text: 'Still down.' });
      const t0 = Date.now();
      const again = await run(agentWith(dying));
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(resultOf(again.events)).toMatchObject({
        status: 'error',
        output: [{ type: 'text', text: expect.stringContaining('is not connected') }],
      });
    } finally {
      await dying.close();
    }
  });

  it('a changed tool list is read again: tools() returns the new tool', async () => {
    expect(mcp.tools().some((t) => t.name === 'probe__late')).toBe(false);
    server.enqueue({ toolCalls: [{ name: 'probe__add_tool', input: { name: 'late' } }] }, { text: 'added' });
    await run(agentWith(mcp));
    await waitFor(() => mcp.tools().some((t) => t.name === 'probe__late'), 'probe__late among the tools');
    expect(toolNamed(mcp, 'probe__late')).toMatchObject({ readOnly: true });
  });

  it('an agent that exists before the tool list changes offers the new tool at its next model request', async () => {
    const agent = agentWith(mcp);
    server.enqueue({ toolCalls: [{ name: 'probe__add_tool', input: { name: 'fresh' } }] }, { text: 'added' });
    await run(agent);
    await waitFor(() => mcp.tools().some((t) => t.name === 'probe__fresh'), 'probe__fresh among the tools');
    server.enqueue({ toolCalls: [{ name: 'probe__fresh', input: {} }] }, { text: 'It said hello.' });
    const { events, end } = await run(agent, 'Call the new tool.');
    expect(end.finishReason).toBe('completed');
    expect(server.requests[0]!.body.tools!.map((t) => t.function.name)).not.toContain('probe__fresh');
    expect(server.requests[2]!.body.tools!.map((t) => t.function.name)).toContain('probe__fresh');
    expect(resultOf(events)).toMatchObject({ status: 'success', output: [{ type: 'text', text: 'hello from fresh' }] });
  });

  it('agent.shutdown() closes the connections: the stdio server process exits; closeOnShutdown: false keeps it', async () => {
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const spawnWithPid = (file: string) => ({
      command: '/bin/sh',
      args: ['-c', `echo $$ > '${file}'; exec '${process.execPath}' '${EVERYTHING}' stdio`],
      stderr: 'ignore' as const,
    });
    const closing = await McpMiddleware.connect({ servers: { owned: spawnWithPid(join(dir, 'owned.pid')) } });
    const kept = await McpMiddleware.connect({
      servers: { kept: spawnWithPid(join(dir, 'kept.pid')) },
      closeOnShutdown: false,
    });
    const ownedPid = Number(readFileSync(join(dir, 'owned.pid'), 'utf8'));
    const keptPid = Number(readFileSync(join(dir, 'kept.pid'), 'utf8'));
    try {
      server.enqueue({ toolCalls: [{ name: 'owned__echo', input: { message: 'hi' } }] }, { text: 'Echoed.' });
      // Two MCP middlewares in one agent (they keep no state, so they need no distinct keys).
      const agent = agentWith(closing, { middlewares: [closing, kept] });
      expect((await run(agent)).end.finishReason).toBe('completed');
      expect(alive(ownedPid)).toBe(true);
      await agent.shutdown();
      expect(closing.status()).toEqual({ owned: 'closed' });
      await waitFor(() => !alive(ownedPid), 'the stdio server process to exit');
      expect(kept.status()).toEqual({ kept: 'connected' });
      expect(alive(keptPid)).toBe(true);
    } finally {
      await Promise.all([closing.close(), kept.close()]);
    }
    await waitFor(() => !alive(keptPid), 'the kept server process to exit after close()');
  });

  it('include/exclude per server and a filter choose what is offered; prefix: false keeps the server names', async () => {
    const chosen = await McpMiddleware.connect({
      servers: { everything: { ...everythingStdio(), include: ['get-sum', 'echo', 'get-env'], exclude: ['get-env'] } },
      prefix: false,
      filter: (name, origin) => !(name === 'echo' && origin.server === 'everything'),
    });
    try {
      expect(chosen.tools().map((t) => t.name)).toEqual(['get-sum']);
    } finally {
      await chosen.close();
    }
  });

  it('bad configuration is refused before anything starts, naming the server', async () => {
    await expect(McpMiddleware.connect({ servers: { files: { command: '' } } })).rejects.toThrow(
      'MCP server "files": `command` must be a non-empty string.',
    );
    await expect(McpMiddleware.connect({ servers: { 'a b': { command: 'x' } } })).rejects.toThrow(
      /MCP server "a b": the name must be/,
    );
    await expect(McpMiddleware.connect({ servers: { both: { command: 'x', url: 'http://h' } } })).rejects.toThrow(
      /exactly one of `command`/,
    );
    await expect(McpMiddleware.connect({ servers: { remote: { url: 'ftp://h/mcp' } } })).rejects.toThrow(
      'must be http(s)',
    );
    await expect(
      McpMiddleware.connect({ servers: { missing: { command: join(dir, 'no-such-server'), stderr: 'ignore' } } }),
    ).rejects.toThrow(/MCP server "missing" \(.*no-such-server\) could not be connected/);
  });
});
