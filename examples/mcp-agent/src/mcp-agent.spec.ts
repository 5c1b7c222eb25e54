// Runs the built example as a person would (a child process) and, in serve mode, as an MCP host
// would: the SDK's own client starts it over stdio and calls the served agent, whose model is
// the OpenAI-compatible test server and whose tools come from server-everything.
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { startOpenAITestServer } from '@rxscope/core/testing/node';

const ROOT = join(__dirname, '..', '..', '..');
const MAIN = join(ROOT, 'examples', 'mcp-agent', 'dist', 'main.js');

beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'examples/mcp-agent'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}, 120_000);

describe('mcp-agent example', () => {
  jest.setTimeout(60_000);

  it('offline: the agent calls server-everything over stdio and answers from the results, the image included', async () => {
    const env = { ...process.env };
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL']) delete env[name];
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve, reject) => {
        const child = spawn(process.execPath, [MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
        child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
        child.once('error', reject);
        child.once('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
      },
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^tools from MCP: .*everything__get-sum.*everything__get-tiny-image/m);
    expect(stdout).toContain('[calling everything__get-sum]');
    expect(stdout).toContain('[success] The sum of 2 and 3 is 5.');
    expect(stdout).toMatch(
      /\[success\] Here's the image you requested: \| <image\/png, \d+ base64 chars> \| The image above is the MCP logo\./,
    );
    expect(stdout).toContain('The sum of 2 and 3 is 5. I can see the MCP logo');
    expect(stdout).toContain('(completed)');
  });

  it('register: the server asks the person (elicitation); a refused answer is asked again; the answer reaches the server', async () => {
    const env = { ...process.env };
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL']) delete env[name];
    const child = spawn(process.execPath, [MAIN, 'register'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let answered = 0;
    // A person at the terminal: answers each prompt when it appears (the first integer is not a number).
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      // The prompt: what came since the last answer, after its last line break (stdin is not echoed).
      const since = out.slice(answered);
      const prompt = since.slice(since.lastIndexOf('\n') + 1);
      if (!prompt.endsWith(': ')) return;
      answered = out.length;
      const refused = out.includes('is invalid');
      const line = prompt.startsWith('  name')
        ? 'Ada Lovelace'
        : prompt.startsWith('  integer')
          ? refused
            ? '7'
            : 'many'
          : prompt.startsWith('Send it?')
            ? 'y'
            : '';
      child.stdin.write(`${line}\n`);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toContain('(awaiting_confirmation)');
    expect(out).toContain('The server asks: Please provide inputs for the following fields:');
    expect(out).toMatch(/is invalid: integer: expected integer/);
    expect(out).toContain('- Name: Ada Lovelace');
    expect(out).toContain('- Favorite Integer: 7');
    expect(out).toContain('Welcome aboard, Ada Lovelace.');
    expect(out).toContain('(completed)');
  });

  it('serve: an MCP client starts it over stdio and calls the agent, which uses MCP tools itself', async () => {
    const server = await startOpenAITestServer({
      script: [
        { toolCalls: [{ name: 'everything__get-sum', input: { a: 40, b: 2 } }] },
        { text: ['It is ', '42.'], chunkDelayMs: 20 },
      ],
    });
    const client = new Client({ name: 'host', version: '1.0.0' });
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [MAIN, 'serve'],
          env: { ...getDefaultEnvironment(), OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url },
          stderr: 'ignore',
        }),
      );
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['calculator']);
      const progress: Progress[] = [];
      const result = await client.callTool(
        { name: 'calculator', arguments: { message: 'What is 40 + 2?' } },
        undefined,
        {
          onprogress: (p) => progress.push(p),
        },
      );
      expect(result).toEqual({ content: [{ type: 'text', text: 'It is 42.' }] });
      expect(progress.map((p) => p.message)).toEqual(['It is ', '42.']);
      expect(server.requests[0]!.body.messages!.at(-1)).toMatchObject({ role: 'user', content: 'What is 40 + 2?' });
      expect(server.requests[1]!.body.messages!.find((m) => m.role === 'tool')).toMatchObject({
        content: 'The sum of 40 and 2 is 42.',
      });
    } finally {
      await client.close();
      await server.close();
    }
  });
});
