import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { toolResultsOf } from '../message/msg.js';
import { ScriptedChatModel } from '../testing/index.js';
import { defineTool } from '../tool/tool.js';
import type { ToolResultEndEvent } from './events.js';
import { textOfToolResult } from './text-of-tool-result.js';

const greet = defineTool({
  name: 'greet',
  description: 'Greets someone',
  input: z.object({ who: z.string() }),
  execute: ({ who }) => `Hello, ${who}!`,
});
const weather = defineTool({
  name: 'weather',
  description: 'Weather of a city',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, tempC: 21 }),
});

async function toolResults(): Promise<{ ends: ToolResultEndEvent[]; agent: Agent }> {
  const model = new ScriptedChatModel([
    {
      toolCalls: [
        { id: 'g', name: 'greet', input: { who: 'Ada' } },
        { id: 'w', name: 'weather', input: { city: 'Paris' } },
      ],
    },
    { text: 'Done.' },
  ]);
  const agent = new Agent({ model, tools: [greet, weather] });
  const events = await lastValueFrom(agent.reply('hi').pipe(toArray()));
  return { ends: events.filter((e): e is ToolResultEndEvent => e.type === 'TOOL_RESULT_END'), agent };
}

describe('textOfToolResult', () => {
  it("gives a string result's text, which the event carries in output (value is undefined)", async () => {
    const { ends } = await toolResults();
    const greeting = ends.find((e) => e.toolCallId === 'g')!;
    expect(greeting.value).toBeUndefined();
    expect(textOfToolResult(greeting)).toBe('Hello, Ada!');
  });

  it("gives an object result's JSON text, while value keeps the object", async () => {
    const { ends } = await toolResults();
    const forecast = ends.find((e) => e.toolCallId === 'w')!;
    expect(forecast.value).toEqual({ city: 'Paris', tempC: 21 });
    expect(JSON.parse(textOfToolResult(forecast))).toEqual({ city: 'Paris', tempC: 21 });
  });

  it("reads a message's tool_result blocks the same way", async () => {
    const { agent } = await toolResults();
    const reply = agent.context.at(-1)!;
    expect(toolResultsOf(reply).map(textOfToolResult)).toEqual(['Hello, Ada!', '{"city":"Paris","tempC":21}']);
  });

  it('gives the text of the other kinds of result the docs list, none of which has a value', async () => {
    const chart = defineTool({
      name: 'chart',
      description: 'A chart',
      input: z.object({}),
      execute: () => [
        { type: 'text' as const, text: 'A chart: ' },
        { type: 'data' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    });
    const count = defineTool({
      name: 'count',
      description: 'Counts',
      input: z.object({}),
      execute: async function* () {
        yield 'one, ';
        yield 'two';
      },
    });
    const broken = defineTool({
      name: 'broken',
      description: 'Fails',
      input: z.object({}),
      execute: () => {
        throw new Error('disk full');
      },
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'c', name: 'chart', input: {} },
          { id: 'n', name: 'count', input: {} },
          { id: 'b', name: 'broken', input: {} },
        ],
      },
      { text: 'Done.' },
    ]);
    const agent = new Agent({ model, tools: [chart, count, broken] });
    const events = await lastValueFrom(agent.reply('go').pipe(toArray()));
    const ends = new Map(
      events.filter((e): e is ToolResultEndEvent => e.type === 'TOOL_RESULT_END').map((e) => [e.toolCallId, e]),
    );
    expect([...ends.values()].map((e) => e.value)).toEqual([undefined, undefined, undefined]);
    expect(textOfToolResult(ends.get('c')!)).toBe('A chart: ');
    expect(textOfToolResult(ends.get('n')!)).toBe('one, two');
    expect(ends.get('b')!.status).toBe('error');
    expect(textOfToolResult(ends.get('b')!)).toContain('disk full');
  });

  it('concatenates text blocks and skips data blocks', () => {
    const output = [
      { type: 'text', text: 'A chart: ' },
      { type: 'data', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'text', text: 'rising.' },
    ] as const;
    expect(textOfToolResult({ output })).toBe('A chart: rising.');
    expect(textOfToolResult({ output: [] })).toBe('');
  });
});
