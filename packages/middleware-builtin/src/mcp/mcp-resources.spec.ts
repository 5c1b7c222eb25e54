import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type AgentEvent, OptionsError } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, customValues, ofType, run, testServerModel } from '../__tests__/helpers.js';
import { everythingStdio, probeStdio, waitFor } from './__tests__/servers.js';
import { McpMiddleware, type McpLogValue } from './index.js';

const texts = (events: readonly AgentEvent[], i = 0) => {
  const result = ofType(events, 'TOOL_RESULT_END')[i]!;
  return result.output.map((b) => (b.type === 'text' ? b.text : `<${b.mediaType}>`)).join('\n');
};

/**
 * Resources, prompts, server logging and roots against server-everything over stdio, and a
 * probe server (the SDK's McpServer) that adds resources and prompts at run time.
 */
describe('McpMiddleware: resources, prompts, logging, roots', () => {
  jest.setTimeout(60_000);
  let dir: string;
  let mcp: McpMiddleware;
  let server: OpenAITestServer;
  const logs: McpLogValue[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxscope-mcp-res-'));
    mcp = await McpMiddleware.connect({
      servers: { everything: everythingStdio(), probe: probeStdio(join(dir, 'probe.log')) },
      logLevel: 'debug',
      onLog: (value) => logs.push(value),
      roots: [{ uri: 'file:///srv/project', name: 'project' }],
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

  const agent = () => new Agent({ model: testServerModel(server), middlewares: [mcp] });

  it('lists resources and templates, reads one, and the model opens a resource link with <server>__read_resource', async () => {
    const uris = mcp.resources().map((r) => `${r.server} ${r.uri}`);
    expect(uris).toEqual(expect.arrayContaining(['probe probe://first']));
    expect(uris.some((u) => u.startsWith('everything demo://resource/static/document/'))).toBe(true);
    expect(mcp.resourceTemplates().map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining([expect.stringContaining('demo://resource/dynamic/text/')]),
    );
    const read = await mcp.readResource('probe', 'probe://first');
    expect(read.contents).toEqual([{ uri: 'probe://first', text: 'contents of first' }]);

    // get-resource-links returns links; the model opens the first with the read tool.
    server.enqueue(
      { toolCalls: [{ name: 'everything__get-resource-links', input: { count: 1 } }] },
      { toolCalls: [{ name: 'everything__read_resource', input: { uri: 'demo://resource/dynamic/text/1' } }] },
      { text: 'Read it.' },
    );
    const { events, end } = await run(agent(), 'Open the first resource.');
    expect(end.finishReason).toBe('completed');
    expect(texts(events, 0)).toContain('[resource link');
    expect(texts(events, 1)).toMatch(/^\[resource demo:\/\/resource\/dynamic\/text\/1\]\n/);
    expect(mcp.tools().find((t) => t.name === 'everything__read_resource')).toMatchObject({ readOnly: true });
  });

  it('a changed resource or prompt list is read again; a prompt is messages usable as a reply input', async () => {
    server.enqueue({ toolCalls: [{ name: 'probe__add_resource', input: { name: 'second' } }] }, { text: 'Added.' });
    await run(agent(), 'Add one.');
    await waitFor(() => mcp.resources().some((r) => r.uri === 'probe://second'), 'the new resource listed');
    await waitFor(() => mcp.prompts().some((p) => p.id === 'probe__second-prompt'), 'the new prompt listed');

    const messages = await mcp.prompt('everything__args-prompt', { city: 'Oslo' });
    expect(messages).toEqual([
      expect.objectContaining({ role: 'user', content: [{ type: 'text', text: "What's weather in Oslo?" }] }),
    ]);
    server.enqueue({ text: 'Cold.' });
    const { end } = await run(agent(), messages);
    expect(end.finishReason).toBe('completed');
    expect(server.requests.at(-1)!.body.messages!.at(-1)).toMatchObject({
      role: 'user',
      content: "What's weather in Oslo?",
    });
    await expect(mcp.prompt('everything__no-such-prompt')).rejects.toThrow(
      /No MCP prompt "everything__no-such-prompt"; prompts: .*everything__args-prompt/,
    );
  });

  it('roots: the server gets the configured roots and, after setRoots, the new list', async () => {
    server.enqueue({ toolCalls: [{ name: 'everything__get-roots-list', input: {} }] }, { text: 'ok' });
    expect(texts((await run(agent(), 'Roots?')).events)).toContain('URI: file:///srv/project');
    await mcp.setRoots([
      { uri: 'file:///srv/a', name: 'a' },
      { uri: 'file:///srv/b', name: 'b' },
    ]);
    await waitFor(() => logs.some((l) => String(l.data).includes('2 root(s)')), 'the server read the new roots');
    server.enqueue({ toolCalls: [{ name: 'everything__get-roots-list', input: {} }] }, { text: 'ok' });
    const text = texts((await run(agent(), 'Roots?')).events);
    expect(text).toContain('URI: file:///srv/b');
    expect(text).not.toContain('file:///srv/project');
    await expect(mcp.setRoots([{ uri: '/srv/c' }])).rejects.toThrow(/a root needs a file:\/\/ uri/);
  });

  it('server log messages reach the running reply as CUSTOM mcp_log events (and onLog)', async () => {
    server.enqueue({ toolCalls: [{ name: 'everything__toggle-simulated-logging', input: {} }] }, { text: 'Logging.' });
    const a = agent();
    const { events } = await run(a, 'Start logging.');
    // Stop it again (the server sends one every 5 s).
    server.enqueue({ toolCalls: [{ name: 'everything__toggle-simulated-logging', input: {} }] }, { text: 'Stopped.' });
    await run(a, 'Stop logging.');
    const values = customValues<McpLogValue>(events, 'mcp_log');
    expect(values.length).toBeGreaterThan(0);
    expect(values[0]).toMatchObject({
      server: 'everything',
      level: expect.any(String),
      data: expect.stringMatching(/message/i),
    });
    expect(logs).toEqual(expect.arrayContaining([values[0]]));
  });

  it('logLevel: the server sends only that level and above', async () => {
    const warnings = await McpMiddleware.connect({
      servers: { probe: probeStdio(join(dir, 'probe2.log')) },
      logLevel: 'warning',
    });
    try {
      server.enqueue({ toolCalls: [{ name: 'probe__log', input: {} }] }, { text: 'Logged.' });
      const { events } = await run(new Agent({ model: testServerModel(server), middlewares: [warnings] }), 'Log.');
      expect(customValues<McpLogValue>(events, 'mcp_log').map((v) => v.level)).toEqual([
        'warning',
        'error',
        'critical',
        'alert',
        'emergency',
      ]);
    } finally {
      await warnings.close();
    }
    // At 'debug' (the suite's connection) every level arrives.
    server.enqueue({ toolCalls: [{ name: 'probe__log', input: {} }] }, { text: 'Logged.' });
    const { events } = await run(agent(), 'Log.');
    expect(customValues<McpLogValue>(events, 'mcp_log').filter((v) => v.server === 'probe')).toHaveLength(8);
  });

  it('misspelt or wrong options are refused before anything starts', async () => {
    await expect(McpMiddleware.connect({ servers: {}, logLevel: 'loud' as never })).rejects.toThrow(OptionsError);
    await expect(McpMiddleware.connect({ servers: {}, roots: [{ uri: 'http://x' }] })).rejects.toThrow(/file:\/\//);
    await expect(McpMiddleware.connect({ servers: {}, logLevl: 'info' } as never)).rejects.toThrow(
      /did you mean "logLevel"/,
    );
  });
});
