import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Agent } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, testServerModel } from '../__tests__/helpers.js';
import { serveAgentOverMcp, type ServedAgentOverHttp } from './index.js';

// The MCP Inspector's command-line mode, as installed from npm (it needs no network).
const INSPECTOR = join(
  dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')),
  'build',
  'index.js',
);
const run = promisify(execFile);

/** The MCP Inspector CLI, a separate process, lists and calls an agent served over Streamable HTTP. */
describe('serveAgentOverMcp with the MCP Inspector CLI', () => {
  jest.setTimeout(60_000);
  let server: OpenAITestServer;
  let served: ServedAgentOverHttp;

  beforeAll(async () => {
    server = await startOpenAITestServer();
    served = await serveAgentOverMcp(
      (sessionId) => new Agent({ name: 'support', model: testServerModel(server), sessionId }),
      { name: 'support', transport: { port: 0 } },
    );
  });
  afterAll(async () => {
    await served.close();
    await closeTestServer(server);
  });

  const inspector = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [INSPECTOR, served.url, '--transport', 'http', ...args], {
      timeout: 30_000,
      // The CLI looks for its own package.json relative to the working directory.
      cwd: dirname(INSPECTOR),
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  };

  it('lists the tool and calls it', async () => {
    const listed = (await inspector('--method', 'tools/list')) as { tools: { name: string; inputSchema: object }[] };
    expect(listed.tools.map((t) => t.name)).toEqual(['support']);
    expect(listed.tools[0]!.inputSchema).toMatchObject({ properties: { message: { type: 'string' } } });

    server.enqueue({ text: 'Order 42 ships tomorrow.' });
    const called = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'support',
      '--tool-arg',
      'message=Where is 42?',
    );
    expect(called).toEqual({ content: [{ type: 'text', text: 'Order 42 ships tomorrow.' }] });
    expect(server.requests.at(-1)!.body.messages!.at(-1)).toMatchObject({ role: 'user', content: 'Where is 42?' });
  });
});
