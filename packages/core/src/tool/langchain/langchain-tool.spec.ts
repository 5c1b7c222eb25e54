import { ToolMessage } from '@langchain/core/messages';
import {
  BaseToolkit,
  DynamicStructuredTool,
  DynamicTool,
  tool,
  type StructuredToolInterface,
} from '@langchain/core/tools';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../../agent/agent.js';
import type { AgentEvent, AgentEventOf } from '../../event/events.js';
import { assertConsistentConversation, assertReplyGrammar } from '../../testing/grammar.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import type { ServerTurn } from '../../testing/node/index.js';
import type { Tool } from '../tool.js';
import { OpenAIChatModel } from '../../model/openai/openai-chat-model.js';
import { fromLangChainTool, fromLangChainTools, LangChainToolError } from './langchain-tool.js';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==';

/**
 * LangChain tools of every kind, converted with fromLangChainTool and run by an agent over the real
 * OpenAI adapter against the test server: what the model is offered, how bad arguments are
 * answered, what the tool returns, and cancellation.
 */
describe('LangChain tools as rxscope tools', () => {
  let server: OpenAITestServer;
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const agentWith = (tools: Tool[]) =>
    new Agent({
      name: 'assistant',
      model: new OpenAIChatModel({
        model: 'gpt-test',
        apiKey: 'sk-test',
        baseURL: server.url,
        configuration: { logLevel: 'off' },
      }),
      tools,
    });

  async function run(tools: Tool[], ...turns: ServerTurn[]) {
    server.enqueue(...turns, { text: 'Done.' });
    const agent = agentWith(tools);
    const events = await lastValueFrom(agent.reply('Go').pipe(toArray()));
    assertReplyGrammar(events);
    assertConsistentConversation(agent.context);
    return results(events);
  }

  const results = (events: readonly AgentEvent[]) =>
    events.filter((e): e is AgentEventOf<'TOOL_RESULT_END'> => e.type === 'TOOL_RESULT_END');
  const textOf = (r: AgentEventOf<'TOOL_RESULT_END'>) =>
    r.output.map((b) => (b.type === 'text' ? b.text : `[${b.mediaType}]`)).join('');
  const offered = () => server.requests[0]!.body.tools!.map((t) => t.function);

  it('tool() with a zod schema: the model sees its JSON Schema; bad arguments are answered naming the field; good ones run', async () => {
    const seen: unknown[] = [];
    const weather = tool(
      ({ city, days }) => {
        seen.push({ city, days });
        return `Sunny in ${city} for ${days} days`;
      },
      {
        name: 'weather',
        description: 'Forecast of a city',
        schema: z.object({ city: z.string().describe('City name'), days: z.number().int() }),
      },
    );
    const [bad, good] = await run(
      [fromLangChainTool(weather)],
      { toolCalls: [{ name: 'weather', input: { city: 'Oslo', days: 'two' } }] },
      { toolCalls: [{ name: 'weather', input: { city: 'Oslo', days: 2 } }] },
    );
    expect(offered()).toEqual([
      {
        name: 'weather',
        description: 'Forecast of a city',
        parameters: expect.objectContaining({
          type: 'object',
          properties: {
            city: { type: 'string', description: 'City name' },
            days: expect.objectContaining({ type: 'integer' }),
          },
          required: ['city', 'days'],
        }),
      },
    ]);
    expect(offered()[0]!.parameters).not.toHaveProperty('$schema');
    expect(bad!.status).toBe('error');
    expect(textOf(bad!)).toContain('- days: expected integer, received string');
    expect(good).toMatchObject({ status: 'success' });
    expect(textOf(good!)).toBe('Sunny in Oslo for 2 days');
    expect(seen).toEqual([{ city: 'Oslo', days: 2 }]);
  });

  it('DynamicStructuredTool: runs with the arguments; an object result reaches the model as JSON', async () => {
    const add = new DynamicStructuredTool({
      name: 'add',
      description: 'Adds two numbers',
      schema: z.object({ a: z.number(), b: z.number() }),
      func: async ({ a, b }) => ({ sum: a + b }),
    });
    const [result] = await run([fromLangChainTool(add)], { toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] });
    expect(offered()[0]).toMatchObject({ name: 'add', parameters: { required: ['a', 'b'] } });
    expect(result!.status).toBe('success');
    expect(textOf(result!)).toBe('{"sum":5}');
    const toolMessage = server.requests[1]!.body.messages!.find((m) => m.role === 'tool');
    expect(JSON.stringify(toolMessage)).toContain('{\\"sum\\":5}');
  });

  it('DynamicTool (a string tool): offered as {input: string}, gets the string', async () => {
    const inputs: string[] = [];
    const shout = new DynamicTool({
      name: 'shout',
      description: 'Upper-cases a text',
      func: async (input: string) => {
        inputs.push(input);
        return input.toUpperCase();
      },
    });
    const [result] = await run([fromLangChainTool(shout)], { toolCalls: [{ name: 'shout', input: { input: 'hey' } }] });
    expect(offered()[0]!.parameters).toMatchObject({ type: 'object', properties: { input: { type: 'string' } } });
    expect(inputs).toEqual(['hey']);
    expect(textOf(result!)).toBe('HEY');
  });

  it('a JSON-Schema tool with content and artifact (as MCP tools are): validated by the schema, content blocks mapped', async () => {
    const chart = new DynamicStructuredTool({
      name: 'chart',
      description: 'Draws a chart',
      schema: {
        type: 'object' as const,
        properties: { series: { type: 'array', items: { type: 'number' } }, title: { type: 'string' } },
        required: ['series'],
        additionalProperties: false,
      },
      responseFormat: 'content_and_artifact',
      func: async (args: Record<string, unknown>) => [
        [
          { type: 'text', text: `Chart of ${(args['series'] as number[]).length} points` },
          { type: 'image', mimeType: 'image/png', data: PIXEL },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
        ],
        { raw: 'not for the model' },
      ],
    });
    const [bad, good] = await run(
      [fromLangChainTool(chart)],
      { toolCalls: [{ name: 'chart', input: { series: [1, 'x'], colour: 'red' } }] },
      { toolCalls: [{ name: 'chart', input: { series: [1, 2, 3] } }] },
    );
    expect(offered()[0]!.parameters).toEqual({
      type: 'object',
      properties: { series: { type: 'array', items: { type: 'number' } }, title: { type: 'string' } },
      required: ['series'],
      additionalProperties: false,
    });
    expect(bad!.status).toBe('error');
    expect(textOf(bad!)).toContain('- series.1: expected number, received string');
    expect(textOf(bad!)).toContain('- colour: unknown field (not in the schema)');
    expect(good!.status).toBe('success');
    expect(good!.output).toEqual([
      { type: 'text', text: 'Chart of 3 points' },
      { type: 'data', mediaType: 'image/png', data: PIXEL },
      { type: 'data', mediaType: 'image/png', data: PIXEL },
    ]);
  });

  it('a ToolMessage with status error, or a throw, is an error result with its text', async () => {
    const lookup = tool(
      ({ id }) => new ToolMessage({ content: `No record ${id}`, tool_call_id: 'ignored', status: 'error' }),
      { name: 'lookup', description: 'Looks a record up', schema: z.object({ id: z.string() }) },
    );
    const crash = tool(
      () => {
        throw new Error('database down');
      },
      { name: 'crash', description: 'Fails', schema: z.object({}) },
    );
    const [missing, failed] = await run(fromLangChainTools([lookup, crash]), {
      toolCalls: [
        { name: 'lookup', input: { id: 'r-9' } },
        { name: 'crash', input: {} },
      ],
    });
    expect(missing).toMatchObject({ status: 'error' });
    expect(textOf(missing!)).toContain('No record r-9');
    expect(failed).toMatchObject({ status: 'error' });
    expect(textOf(failed!)).toContain('database down');
  });

  it("passes the call's AbortSignal: interrupting the reply aborts the running LangChain tool", async () => {
    let aborted: unknown;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow = tool(
      (_input: Record<string, never>, config: { signal?: AbortSignal }) =>
        new Promise<string>((_resolve, reject) => {
          config.signal!.addEventListener('abort', () => {
            aborted = config.signal!.reason ?? 'aborted';
            reject(new Error('stopped'));
          });
          started();
        }),
      { name: 'slow', description: 'Takes forever', schema: z.object({}) },
    );
    server.enqueue({ toolCalls: [{ name: 'slow', input: {} }] });
    const agent = agentWith([fromLangChainTool(slow)]);
    const done = lastValueFrom(agent.reply('Go').pipe(toArray()));
    await running;
    agent.interrupt('user pressed stop');
    const events = await done;
    expect(aborted).toBeDefined();
    expect(results(events)[0]).toMatchObject({ status: 'interrupted' });
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'interrupted' });
  });

  it('fromLangChainTools takes a toolkit; a LangChain tool put straight into tools is refused naming fromLangChainTool', () => {
    const echo = tool(({ text }) => text, {
      name: 'echo',
      description: 'Echoes',
      schema: z.object({ text: z.string() }),
    });
    class Kit extends BaseToolkit {
      tools: StructuredToolInterface[] = [echo];
    }
    expect(fromLangChainTools(new Kit()).map((t) => t.name)).toEqual(['echo']);
    expect(() => fromLangChainTools({} as never)).toThrow(LangChainToolError);
    expect(() => new Agent({ model: agentWith([]).model, tools: [echo as never] })).toThrow(
      /tools\[0\] \("echo"\) is a LangChain tool; convert it with fromLangChainTool\(tool\).*'@rxscope\/core\/langchain'/,
    );
  });
});
