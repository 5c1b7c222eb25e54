import { join } from 'node:path';
import { Agent, type AgentEvent } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, ofType, run, testServerModel } from '../__tests__/helpers.js';
import { everythingStdio, TSX } from './__tests__/servers.js';
import { McpMiddleware } from './index.js';

const STRUCTURED = join(__dirname, '__tests__', 'structured-server.ts');
const resultOf = (events: readonly AgentEvent[]) => ofType(events, 'TOOL_RESULT_END')[0]!;

/**
 * structuredContent against the tool's outputSchema: server-everything's get-structured-content
 * (McpServer), and a server on the SDK's low-level Server that breaks its own schema.
 */
describe('McpMiddleware: structured content', () => {
  jest.setTimeout(60_000);
  let mcp: McpMiddleware;
  let server: OpenAITestServer;

  beforeAll(async () => {
    mcp = await McpMiddleware.connect({
      servers: {
        everything: everythingStdio(),
        structured: { command: process.execPath, args: [TSX, STRUCTURED], stderr: 'ignore' },
      },
    });
  });
  afterAll(() => mcp?.close());
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(() => closeTestServer(server));

  const agent = () => new Agent({ model: testServerModel(server), middlewares: [mcp] });

  it('the model gets the structured value; consumers get it as TOOL_RESULT_END.value', async () => {
    server.enqueue({ toolCalls: [{ name: 'structured__weather', input: { city: 'Oslo' } }] }, { text: '21 degrees.' });
    const { events } = await run(agent(), 'Weather in Oslo?');
    expect(resultOf(events)).toMatchObject({ status: 'success', value: { celsius: 21, sky: 'clear' } });
    const toolMessage = server.requests[1]!.body.messages!.find((m) => m.role === 'tool')!;
    expect(JSON.parse(toolMessage.content as string)).toEqual({ celsius: 21, sky: 'clear' });
  });

  it("server-everything's get-structured-content: the value the schema describes", async () => {
    server.enqueue(
      { toolCalls: [{ name: 'everything__get-structured-content', input: { location: 'New York' } }] },
      { text: 'ok' },
    );
    const { events } = await run(agent(), 'Weather in New York?');
    expect(resultOf(events)).toMatchObject({
      status: 'success',
      value: expect.objectContaining({ temperature: expect.any(Number) }),
    });
  });

  it('a value that breaks the output schema is an error result naming the field; the reply goes on', async () => {
    server.enqueue({ toolCalls: [{ name: 'structured__weather', input: { city: 'Atlantis' } }] }, { text: 'No data.' });
    const { events, end } = await run(agent(), 'Weather in Atlantis?');
    expect(end.finishReason).toBe('completed');
    expect(resultOf(events).status).toBe('error');
    const text = resultOf(events)
      .output.map((b) => (b.type === 'text' ? b.text : ''))
      .join('');
    expect(text).toBe(
      'Tool "structured__weather" failed: MCP tool "weather" of server "structured" returned structured content ' +
        'that does not match its output schema: celsius must be number',
    );
  });
});
