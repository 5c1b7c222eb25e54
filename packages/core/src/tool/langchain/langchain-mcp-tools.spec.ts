import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { dirname, join } from 'node:path';
import { Agent } from '../../agent/agent.js';
import { ofType, runReply } from '../../__tests__/helpers.js';
import { assertConsistentConversation } from '../../testing/grammar.js';
import { ScriptedChatModel } from '../../testing/index.js';
import type { Tool } from '../tool.js';
import { fromLangChainTools } from './langchain-tool.js';

/** The published MCP reference server, started over stdio by LangChain's MCP client. */
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/**
 * LangChain's MCP tools (`@langchain/mcp-adapters`: DynamicStructuredTools with a JSON Schema and
 * `content_and_artifact` results) from a real MCP server, converted with fromLangChainTools.
 */
describe('LangChain MCP tools through fromLangChainTools', () => {
  let client: MultiServerMCPClient;
  let tools: Tool[];
  beforeAll(async () => {
    client = new MultiServerMCPClient({
      mcpServers: {
        everything: { transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' },
      },
    });
    tools = fromLangChainTools(await client.getTools());
  });
  afterAll(async () => {
    await client.close();
  });

  const named = (...names: string[]) => names.map((n) => tools.find((t) => t.name === n)!);

  it('offers their JSON Schema, refuses bad arguments naming the field, maps text and image results', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'get-sum', input: { a: 1, b: 'two' } },
          { name: 'get-sum', input: { a: 1, b: 2 } },
          { name: 'echo', input: { message: 'hello' } },
          { name: 'get-tiny-image', input: {} },
        ],
      },
      { text: 'done' },
    ]);
    const agent = new Agent({ model, tools: named('get-sum', 'echo', 'get-tiny-image') });
    const events = await runReply(agent, agent.reply('go'));
    assertConsistentConversation(agent.context);

    expect(model.requests[0]!.tools[0]).toMatchObject({
      name: 'get-sum',
      parameters: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    });
    const [bad, sum, echo, image] = ofType(events, 'TOOL_RESULT_END');
    expect(bad!.status).toBe('error');
    expect(JSON.stringify(bad!.output)).toContain('- b: expected number, received string');
    expect(sum!.output).toEqual([{ type: 'text', text: expect.stringContaining('3') }]);
    expect(echo!.output).toEqual([{ type: 'text', text: 'Echo: hello' }]);
    expect(image!.status).toBe('success');
    expect(image!.output).toContainEqual({
      type: 'data',
      mediaType: 'image/png',
      data: expect.stringMatching(/^iVBOR/),
    });
  }, 30_000);

  it('an interrupted MCP call ends the reply at once, and the client serves the next call', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'trigger-long-running-operation', input: { duration: 20, steps: 20 } }] },
    ]);
    const agent = new Agent({ model, tools: named('trigger-long-running-operation') });
    const started = Date.now();
    setTimeout(() => agent.interrupt('stop'), 500);
    const events = await runReply(agent, agent.reply('go'));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({ status: 'interrupted' });
    // The client is still usable afterwards: the cancelled request did not break the connection.
    const again = new Agent({
      model: new ScriptedChatModel([
        { toolCalls: [{ name: 'echo', input: { message: 'still here' } }] },
        { text: 'ok' },
      ]),
      tools: named('echo'),
    });
    const more = await runReply(again, again.reply('go'));
    expect(ofType(more, 'TOOL_RESULT_END')[0]!.output).toEqual([{ type: 'text', text: 'Echo: still here' }]);
  }, 30_000);
});
