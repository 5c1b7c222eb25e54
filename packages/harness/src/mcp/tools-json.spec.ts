import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lastValueFrom, toArray } from 'rxjs';
import { Agent, type AgentEvent } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { assertReplyGrammar } from '@rxscope/core/testing';
import { startOpenAITestServer } from '@rxscope/core/testing/node';
import { loadWorkspaceMcp } from './index.js';

const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** loadWorkspaceMcp against the published server-everything, through OpenAIChatModel and the test server. */
describe('loadWorkspaceMcp (tools.json in the workspace)', () => {
  jest.setTimeout(60_000);
  let ws: string;
  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), 'rxscope-tools-json-'));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));
  const write = (value: unknown) =>
    writeFileSync(join(ws, 'tools.json'), typeof value === 'string' ? value : JSON.stringify(value));

  it('connects the servers, drops denied tools, and turns allow/ask into permission rules that apply', async () => {
    write({
      mcpServers: { everything: { command: '${NODE}', args: ['${EVERYTHING}', 'stdio'], stderr: 'ignore' } },
      allow: ['everything__get-*'],
      ask: ['everything__echo'],
      deny: ['everything__toggle-*', 'everything__gzip-*'],
    });
    const mcp = await loadWorkspaceMcp(ws, { env: { NODE: process.execPath, EVERYTHING } });
    const server = await startOpenAITestServer();
    try {
      const names = mcp!.middleware.tools().map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['everything__get-sum', 'everything__echo']));
      expect(names.filter((n) => n.startsWith('everything__toggle-') || n.startsWith('everything__gzip-'))).toEqual([]);
      expect(mcp!.rules).toEqual([
        {
          behavior: 'ask',
          tool: 'everything__echo',
          reason: expect.stringContaining('tools.json asks before everything__echo'),
        },
        { behavior: 'allow', tool: 'everything__get-*' },
      ]);
      const agent = new Agent({
        model: new OpenAIChatModel({
          model: 'gpt-test',
          apiKey: 'sk-test',
          baseURL: server.url,
          configuration: { logLevel: 'off' },
        }),
        middlewares: [mcp!.middleware],
        permissions: { mode: 'strict', rules: [...mcp!.rules] },
      });
      server.enqueue({
        toolCalls: [
          { name: 'everything__get-sum', input: { a: 1, b: 2 } },
          { name: 'everything__get-roots-list', input: {} },
          { name: 'everything__echo', input: { message: 'hi' } },
        ],
      });
      const events: AgentEvent[] = await lastValueFrom(agent.reply('go').pipe(toArray()));
      expect(assertReplyGrammar(events).finishReason).toBe('awaiting_confirmation');
      const results = events.filter((e) => e.type === 'TOOL_RESULT_END');
      expect(results).toEqual([
        expect.objectContaining({ status: 'success', output: [{ type: 'text', text: 'The sum of 1 and 2 is 3.' }] }),
        // The workspace is the servers' root.
        expect.objectContaining({
          status: 'success',
          output: [{ type: 'text', text: expect.stringContaining(`URI: ${pathToFileURL(ws).href}`) }],
        }),
      ]);
      const ask = events.find((e) => e.type === 'REQUIRE_USER_CONFIRM');
      expect(ask).toMatchObject({ toolCalls: [{ name: 'everything__echo' }] });
    } finally {
      await mcp?.close();
      await server.close();
    }
  });

  it('no tools.json: nothing to connect', async () => {
    await expect(loadWorkspaceMcp(ws)).resolves.toBeUndefined();
  });

  it('a malformed file is refused with the file and the field named', async () => {
    const file = join(ws, 'tools.json');
    write('{ "mcpServers": ');
    await expect(loadWorkspaceMcp(ws)).rejects.toThrow(`${file}: not valid JSON`);
    write({ mcpServer: {} });
    await expect(loadWorkspaceMcp(ws)).rejects.toThrow(`${file}: unknown field "mcpServer"`);
    write({ allow: 'everything__*' });
    await expect(loadWorkspaceMcp(ws)).rejects.toThrow(`${file}: "allow" must be an array of tool names.`);
    write({ mcpServers: { remote: { url: 'https://h/mcp', headers: { authorization: 'Bearer ${NO_SUCH_TOKEN}' } } } });
    await expect(loadWorkspaceMcp(ws, { env: {} })).rejects.toThrow(
      `${file}: the environment variable NO_SUCH_TOKEN is not set`,
    );
    write({ mcpServers: { files: { command: '' } } });
    await expect(loadWorkspaceMcp(ws)).rejects.toThrow('MCP server "files": `command` must be a non-empty string.');
  });
});
