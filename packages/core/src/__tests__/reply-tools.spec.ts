import { lastValueFrom } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { AgentUsageError } from '../agent/errors.js';
import { toolResultsOf } from '../message/msg.js';
import { externalTool } from '../tool/external-tool.js';
import { defineTool } from '../tool/tool.js';
import { assertConsistentConversation, assertReplyGrammar, ScriptedChatModel } from '../testing/index.js';
import { endOf, ofType, runReply } from './helpers.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'reads a record',
  input: z.object({ id: z.string() }),
  readOnly: true,
  execute: ({ id }) => `record ${id}`,
});
const pickDate = externalTool({
  name: 'pick_date',
  description: 'Lets the user pick a date',
  parameters: { type: 'object', properties: { purpose: { type: 'string' } }, required: ['purpose'] },
});

describe('tools of one reply (reply(input, { tools }))', () => {
  it('are offered and run in that reply only, beside the agent tools', async () => {
    const ran: string[] = [];
    const quote = defineTool({
      name: 'quote',
      description: 'prices a cart',
      input: z.object({ cart: z.string() }),
      execute: ({ cart }) => (ran.push(cart), '12 EUR'),
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'q1', name: 'quote', input: { cart: 'c-7' } }] },
      { text: '12 EUR.' },
      { text: 'Hello.' },
    ]);
    const agent = new Agent({ name: 'shop', model, tools: [lookup] });
    const first = await runReply(agent, agent.reply('price my cart', { tools: [quote] }));
    expect(assertReplyGrammar(first).finishReason).toBe('completed');
    expect(ran).toEqual(['c-7']);
    expect(model.requests[0]!.tools?.map((t) => t.name)).toEqual(['lookup', 'quote']);
    expect(model.requests[1]!.tools?.map((t) => t.name)).toEqual(['lookup', 'quote']);
    await runReply(agent, agent.reply('hi'));
    expect(model.requests[2]!.tools?.map((t) => t.name)).toEqual(['lookup']);
    expect(agent.tools.map((t) => t.name)).toEqual(['lookup']);
  });

  it('an external tool made from a JSON Schema suspends the reply; the resume with the same tools completes it', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'p1', name: 'pick_date', input: { purpose: 'delivery' } }] },
      { text: 'Booked.' },
    ]);
    const agent = new Agent({ name: 'shop', model, tools: [lookup] });
    const first = await runReply(agent, agent.reply('book a delivery', { tools: [pickDate] }));
    expect(endOf(first).finishReason).toBe('awaiting_external_execution');
    expect(ofType(first, 'REQUIRE_EXTERNAL_EXECUTION')[0]!.toolCalls).toEqual([
      { id: 'p1', name: 'pick_date', input: { purpose: 'delivery' } },
    ]);
    expect(model.requests[0]!.tools?.[1]).toEqual({
      name: 'pick_date',
      description: 'Lets the user pick a date',
      parameters: pickDate.schema.parameters,
    });
    const second = await runReply(
      agent,
      agent.reply(
        { type: 'EXTERNAL_EXECUTION_RESULT', results: [{ toolCallId: 'p1', output: '2026-03-03' }] },
        { tools: [pickDate] },
      ),
    );
    expect(endOf(second).finishReason).toBe('completed');
    expect(toolResultsOf(agent.context[1]!)[0]).toMatchObject({ toolCallId: 'p1', status: 'success' });
    expect(model.requests[1]!.tools?.map((t) => t.name)).toEqual(['lookup', 'pick_date']);
    assertConsistentConversation(agent.context);
  });

  it('refuses a reply tool named like an agent tool, or two with one name, before anything runs', async () => {
    const model = new ScriptedChatModel([{ text: 'never' }]);
    const agent = new Agent({ name: 'shop', model, tools: [lookup] });
    const clash = externalTool({ name: 'lookup', description: 'x', parameters: { type: 'object' } });
    const refusal = (tools: unknown) =>
      lastValueFrom(agent.reply('hi', { tools } as never)).then(
        () => undefined,
        (e: unknown) => e,
      );
    const first = await refusal([clash]);
    expect(first).toBeInstanceOf(AgentUsageError);
    expect((first as Error).message).toBe(
      `Invalid reply options: the tool "lookup" has the name of one of the agent's tools; rename it.`,
    );
    expect(await refusal([pickDate, pickDate])).toMatchObject({
      message: expect.stringContaining('two tools are named "pick_date"') as string,
    });
    expect(await refusal([{ name: 'x' }])).toMatchObject({
      message: expect.stringContaining('Invalid reply options: tools[0] is not a tool') as string,
    });
    expect(model.requests).toHaveLength(0);
    expect(agent.context).toEqual([]);
  });

  it('externalTool refuses a schema that does not describe an object', () => {
    expect(() => externalTool({ name: 'x', description: 'x', parameters: { type: 'string' } })).toThrow(
      /must describe an object/,
    );
    expect(() => externalTool({ name: 'x', description: 'x', parameters: 'nope' as never })).toThrow(
      /must be a JSON Schema object/,
    );
    expect(() => externalTool({ name: 'bad name', description: 'x', parameters: {} })).toThrow(/Invalid tool name/);
  });
});
