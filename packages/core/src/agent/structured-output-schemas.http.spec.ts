import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { OpenAIChatModel } from '../model/openai/openai-chat-model.js';
import { assertReplyGrammar } from '../testing/grammar.js';
import { startOpenAITestServer, type OpenAITestServer } from '../testing/node/index.js';
import { ScriptedChatModel } from '../testing/scripted-model.js';
import { jsonSchemaInput } from '../tool/json-schema-input.js';
import { endOf, ofType, runReply } from '../__tests__/helpers.js';
import { Agent } from './agent.js';

const Invoice = toStandardJsonSchema(
  v.object({
    customer: v.string(),
    total: v.number(),
    lines: v.array(v.object({ item: v.string(), qty: v.number() })),
  }),
);

const InvoiceJson = jsonSchemaInput<{ customer: string; total: number }>({
  type: 'object',
  properties: { customer: { type: 'string' }, total: { type: 'number' } },
  required: ['customer', 'total'],
  additionalProperties: false,
});

/** `output` with schemas of other libraries than zod 4: the real adapter on the wire, and the final_output tool. */
describe('structured output with valibot and JSON Schema', () => {
  let server: OpenAITestServer;
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const agent = () =>
    new Agent({
      name: 'clerk',
      model: new OpenAIChatModel({
        model: 'gpt-test',
        apiKey: 'sk-test',
        baseURL: server.url,
        configuration: { logLevel: 'off' },
      }),
    });

  it('valibot: response_format carries its JSON Schema (strict), a bad value gets a repair naming the field, call() resolves typed', async () => {
    server.enqueue(
      { json: { customer: 'ACME', total: 'thirty', lines: [] } },
      { json: { customer: 'ACME', total: 30, lines: [{ item: 'bolt', qty: 3 }] } },
    );
    const invoice = await agent().call('Invoice for 3 bolts to ACME', { output: Invoice });
    const total: number = invoice.total; // typed by valibot's output type
    expect(total).toBe(30);
    expect(invoice).toEqual({ customer: 'ACME', total: 30, lines: [{ item: 'bolt', qty: 3 }] });

    expect(server.requests[0]!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'final_output',
        strict: true,
        schema: expect.objectContaining({
          type: 'object',
          required: ['customer', 'total', 'lines'],
          additionalProperties: false,
        }),
      },
    });
    const repair = server.requests[1]!.body.messages!.at(-1)!;
    expect(repair.role).toBe('user');
    expect(JSON.stringify(repair.content)).toMatch(/Expected number but received \\"thirty\\".*at total/);
  });

  it('JSON Schema: the answer is validated with it (a bad one repaired) and REPLY_END carries the value', async () => {
    server.enqueue({ json: { customer: 'ACME' } }, { json: { customer: 'ACME', total: 12.5 } });
    const events = await lastValueFrom(agent().reply('Invoice', { output: InvoiceJson }).pipe(toArray()));
    const end = assertReplyGrammar(events);
    expect(end).toMatchObject({ finishReason: 'completed', output: { customer: 'ACME', total: 12.5 } });
    expect(server.requests[0]!.body.response_format).toMatchObject({
      json_schema: { strict: true, schema: { properties: { total: { type: 'number' } } } },
    });
    expect(JSON.stringify(server.requests[1]!.body.messages!.at(-1)!.content)).toMatch(
      /expected number, received undefined.*at total/,
    );
  });
});

describe('structured output through the final_output tool, and agents as tools, with other schemas', () => {
  it('a JSON Schema output through final_output: bad arguments get an error result naming the field', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'final_output', input: { customer: 'ACME', total: '12' } }] },
      { toolCalls: [{ name: 'final_output', input: { customer: 'ACME', total: 12 } }] },
    ]);
    const agent = new Agent({ model });
    const events = await runReply(agent, agent.reply('Invoice', { output: InvoiceJson }));
    expect(model.requests[0]!.tools[0]).toMatchObject({
      name: 'final_output',
      parameters: { properties: { customer: { type: 'string' } }, required: ['customer', 'total'] },
    });
    const [bad, good] = ofType(events, 'TOOL_RESULT_END');
    expect(bad!.status).toBe('error');
    expect(JSON.stringify(bad!.output)).toContain('- total: expected number, received string');
    expect(good!.status).toBe('success');
    expect(endOf(events)).toMatchObject({ finishReason: 'completed', output: { customer: 'ACME', total: 12 } });
  });

  it('a valibot answer that is not an object travels as {value}, and comes back unwrapped', async () => {
    const tags = toStandardJsonSchema(v.array(v.string()));
    const model = new ScriptedChatModel([{ text: '{"value":["a",2]}' }, { text: '{"value":["a","b"]}' }], {
      supportsResponseFormat: true,
    });
    const agent = new Agent({ model });
    const events = await runReply(agent, agent.reply('tags', { output: tags }));
    expect(model.requests[0]!.responseFormat).toMatchObject({
      strict: true,
      schema: { type: 'object', properties: { value: { type: 'array' } }, required: ['value'] },
    });
    expect(ofType(events, 'HINT_BLOCK')[0]!.text).toMatch(/at value\[1\]/);
    expect(endOf(events).output).toEqual(['a', 'b']);
  });

  it('asTool takes a valibot input and a JSON Schema output', async () => {
    const inner = new Agent({
      name: 'pricer',
      model: new ScriptedChatModel([{ text: '{"customer":"ACME","total":7}' }], { supportsResponseFormat: true }),
    });
    const tool = inner.asTool({
      description: 'Prices an order',
      input: toStandardJsonSchema(v.object({ order: v.string() })),
      prompt: ({ order }) => `Price: ${order}`,
      output: InvoiceJson,
    });
    expect(tool.schema.parameters).toMatchObject({ properties: { order: { type: 'string' } }, required: ['order'] });
    const outer = new ScriptedChatModel([
      { toolCalls: [{ name: 'pricer', input: { order: 7 } }] },
      { toolCalls: [{ name: 'pricer', input: { order: '7 bolts' } }] },
      { text: 'done' },
    ]);
    const lead = new Agent({ name: 'lead', model: outer, tools: [tool] });
    const events = await runReply(lead, lead.reply('Price 7 bolts'));
    const results = ofType(events, 'TOOL_RESULT_END').filter((e) => e.source === 'lead');
    expect(results.map((r) => r.status)).toEqual(['error', 'success']);
    expect(JSON.stringify(results[0]!.output)).toContain('- order: Invalid type: Expected string but received 7');
    expect(JSON.stringify(results[1]!.output)).toContain('{\\"customer\\":\\"ACME\\",\\"total\\":7}');
  });
});
