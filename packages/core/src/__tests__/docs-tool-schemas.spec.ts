/**
 * The tool-schema code of docs/getting-started.md ("Tool schemas") and of docs/models.md
 * ("LangChain tools"), run: each page block is a file in ./docs/ shown through a snippet marker.
 */
import { Agent } from '../agent/agent.js';
import { ScriptedChatModel } from '../testing/index.js';
import { convert, lookup, roll } from './docs/getting-started/tool-schemas.js';
import { travelAgent } from './docs/models/langchain-tools.js';
import { ofType, runReply } from './helpers.js';

const texts = (events: Awaited<ReturnType<typeof runReply>>) =>
  ofType(events, 'TOOL_RESULT_END').map((r) => ({
    status: r.status,
    text: r.output.map((b) => (b.type === 'text' ? b.text : '')).join(''),
  }));

describe('docs: tool schemas of other libraries', () => {
  it('the valibot, arktype and JSON Schema tools send their JSON Schema, refuse bad input naming the field and run good input', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'convert', input: { amount: '10', from: 'EUR', to: 'USD' } },
          { name: 'roll', input: { dice: 11 } },
          { name: 'lookup', input: { orderId: 'B-1' } },
        ],
      },
      {
        toolCalls: [
          { name: 'convert', input: { amount: 10, from: 'EUR', to: 'USD' } },
          { name: 'roll', input: { dice: 2 } },
          { name: 'lookup', input: { orderId: 'A-42' } },
        ],
      },
      { text: 'done' },
    ]);
    const agent = new Agent({ model, tools: [convert, roll, lookup] });
    const events = await runReply(agent, agent.reply('go'));

    expect(model.requests[0]!.tools.map((t) => [t.name, t.parameters['required']])).toEqual([
      ['convert', ['amount', 'from', 'to']],
      ['roll', ['dice']],
      ['lookup', ['orderId']],
    ]);
    const [badConvert, badRoll, badLookup, ...good] = texts(events);
    expect(badConvert).toMatchObject({
      status: 'error',
      text: expect.stringContaining('- amount: Invalid type: Expected number'),
    });
    expect(badRoll).toMatchObject({
      status: 'error',
      text: expect.stringContaining('- dice: dice must be at most 10'),
    });
    expect(badLookup).toMatchObject({
      status: 'error',
      text: expect.stringContaining('- orderId: must match pattern'),
    });
    expect(good).toEqual([
      { status: 'success', text: '10 EUR is 11.00 USD' },
      { status: 'success', text: '6' },
      { status: 'success', text: 'Order A-42: shipped' },
    ]);
  });
});

describe('docs: LangChain tools', () => {
  it('the converted LangChain tools are offered and run; the spread flag holds', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'weather', input: { city: 'Tokyo' } },
          { name: 'timezone', input: { city: 'Tokyo' } },
        ],
      },
      { text: 'Sunny, Asia/Tokyo.' },
    ]);
    const agent = travelAgent(model);
    const events = await runReply(agent, agent.reply('Tokyo?'));
    expect(agent.tools.map((t) => [t.name, t.readOnly])).toEqual([
      ['weather', true],
      ['timezone', false],
    ]);
    expect(texts(events)).toEqual([
      { status: 'success', text: 'Sunny in Tokyo' },
      { status: 'success', text: 'Asia/Tokyo' },
    ]);
  });
});
