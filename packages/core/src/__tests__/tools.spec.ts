import { interval, map, Observable, take } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { toolResultsOf } from '../message/msg.js';
import { defineTool } from '../tool/tool.js';
import { parseToolArguments } from '../tool/validate.js';
import { ScriptedChatModel } from '../testing/index.js';
import { addTool, endOf, ofType, runReply, sleep } from './helpers.js';

const resultText = (agent: Agent, i = 0) => {
  const r = toolResultsOf(agent.context[agent.context.length - 1]!)[i]!;
  return { status: r.status, text: r.output.map((b) => (b.type === 'text' ? b.text : '')).join('') };
};

describe('tools', () => {
  it('defineTool derives the JSON Schema from zod and rejects bad definitions', () => {
    const search = defineTool({
      name: 'search',
      description: 'Searches',
      input: z.object({ query: z.string().min(1), limit: z.number().int().default(5) }),
      execute: () => 'x',
    });
    expect(search.schema.parameters).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string', minLength: 1 }, limit: { type: 'integer', default: 5 } },
      required: ['query'],
    });
    expect(search.readOnly).toBe(false);
    expect(search.concurrencySafe).toBe(false);
    expect(() => defineTool({ name: 'bad name!', description: '', input: z.object({}), execute: () => '' })).toThrow(
      /Invalid tool name/,
    );
    expect(() => defineTool({ name: 'noop', description: '', input: z.object({}) })).toThrow(
      /needs an execute function/,
    );
  });

  it('defineTool refuses an input that is not a schema of an object, saying what to write instead', () => {
    const define = (input: unknown) => () =>
      defineTool({ name: 'weather', description: '', input: input as z.ZodObject, execute: () => '' });
    // A plain JSON Schema instead of a schema (it used to fail with "reading 'def'"): jsonSchemaInput wraps it.
    expect(define({ type: 'object', properties: { city: { type: 'string' } } })).toThrow(
      'Tool "weather": input must be a schema: a zod, valibot or arktype schema (any Standard Schema) or jsonSchemaInput({...}) for a plain JSON Schema; got an object. This looks like a plain JSON Schema: wrap it, jsonSchemaInput({ type: "object", ... }).',
    );
    expect(define(undefined)).toThrow(/input must be a schema: .* got nothing/);
    // Models take an object of named arguments: a bare string or array schema is refused.
    expect(define(z.string())).toThrow(
      'Tool "weather": input must describe an object (models take named arguments), but it is a string; wrap it, e.g. z.object({ query: z.string() }).',
    );
    expect(define(z.array(z.number()))).toThrow(/but it is an array/);
    expect(define(z.object({ city: z.string() }).refine((v) => v.city !== ''))).not.toThrow();
    expect(() => defineTool({ name: 'x', description: '', input: z.object({}), execute: 'run' as never })).toThrow(
      'Tool "x": execute must be a function (input, toolCtx) => result.',
    );
  });

  it('invalid arguments never reach execute: the model gets an error naming the field and the expected type', async () => {
    const execute = jest.fn(({ a, b }: { a: number; b: number }) => String(a + b));
    const add = defineTool({
      name: 'add',
      description: 'adds',
      input: z.object({ a: z.number(), b: z.number() }),
      execute,
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', arguments: '{"a":"two","b":3}' }] },
      { toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] },
      { text: '5' },
    ]);
    const agent = new Agent({ model, tools: [add] });
    const events = await runReply(agent, agent.reply('2+3'));
    expect(execute).toHaveBeenCalledTimes(1);
    expect(execute.mock.calls[0]![0]).toEqual({ a: 2, b: 3 });
    const first = ofType(events, 'TOOL_RESULT_END')[0]!;
    expect(first.status).toBe('error');
    const text = JSON.stringify(first.output);
    expect(text).toContain('add');
    expect(text).toContain('- a: expected number, received string');
    expect(endOf(events).finishReason).toBe('completed');
  });

  it('reports missing fields and malformed JSON clearly', () => {
    expect(parseToolArguments(addTool, '{"a":1}')).toEqual({
      ok: false,
      message: expect.stringContaining('- b: expected number, received undefined') as string,
      issues: ['b: expected number, received undefined'],
    });
    const bad = parseToolArguments(addTool, '{"a":1,');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(/not valid JSON/);
    expect(
      parseToolArguments(defineTool({ name: 'none', description: '', input: z.object({}), execute: () => '' }), ''),
    ).toEqual({
      ok: true,
      input: {},
    });
  });

  it('an unknown tool name is answered with the list of tools, and the loop continues', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'multiply', input: { a: 2, b: 3 } }] },
      { text: 'sorry' },
    ]);
    const agent = new Agent({ model, tools: [addTool] });
    const events = await runReply(agent, agent.reply('2*3'));
    expect(resultText(agent)).toEqual({ status: 'error', text: 'Unknown tool "multiply". Available tools: add.' });
    expect(endOf(events).finishReason).toBe('completed');
  });

  it('a throwing tool (sync, async or erroring Observable) becomes an error result and the loop continues', async () => {
    const boom = defineTool({
      name: 'boom',
      description: '',
      input: z.object({ how: z.enum(['sync', 'async', 'observable']) }),
      execute: ({ how }) => {
        if (how === 'sync') throw new Error('sync failure');
        if (how === 'async') return Promise.reject(new Error('async failure'));
        return new Observable<string>((s) => {
          s.next('half');
          s.error(new Error('stream failure'));
        });
      },
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'boom', input: { how: 'sync' } },
          { name: 'boom', input: { how: 'async' } },
          { name: 'boom', input: { how: 'observable' } },
        ],
      },
      { text: 'handled' },
    ]);
    const agent = new Agent({ model, tools: [boom] });
    const events = await runReply(agent, agent.reply('x'));
    expect([0, 1, 2].map((i) => resultText(agent, i))).toEqual([
      { status: 'error', text: 'Tool "boom" failed: sync failure' },
      { status: 'error', text: 'Tool "boom" failed: async failure' },
      { status: 'error', text: 'Tool "boom" failed: stream failure' },
    ]);
    expect(endOf(events).finishReason).toBe('completed');
    expect(model.requests).toHaveLength(2);
  });

  it('a returned object reaches the model as JSON and consumers as the object itself (TOOL_RESULT_END.value)', async () => {
    const weather = defineTool({
      name: 'weather',
      description: '',
      input: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, tempC: 21, sunny: true }),
    });
    const hits = defineTool({
      name: 'hits',
      description: '',
      input: z.object({}),
      execute: () => [{ id: 1 }, { id: 2 }],
    });
    const text = defineTool({ name: 'text', description: '', input: z.object({}), execute: () => 'plain' });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'weather', input: { city: 'Paris' } },
          { name: 'hits', input: {} },
          { name: 'text', input: {} },
        ],
      },
      { text: 'done' },
    ]);
    const agent = new Agent({ model, tools: [weather, hits, text] });
    const events = await runReply(agent, agent.reply('go'));
    const [w, h, t] = ofType(events, 'TOOL_RESULT_END');
    expect(w!.value).toEqual({ city: 'Paris', tempC: 21, sunny: true });
    expect(w!.output).toEqual([{ type: 'text', text: '{"city":"Paris","tempC":21,"sunny":true}' }]);
    // An array is one value (one JSON result), not one delta per element glued together.
    expect(h!.value).toEqual([{ id: 1 }, { id: 2 }]);
    expect(h!.output).toEqual([{ type: 'text', text: '[{"id":1},{"id":2}]' }]);
    expect('value' in t!).toBe(false);
  });

  it('progress (toolCtx.emit) is its own event inside the result block, never mixed into the result deltas', async () => {
    const weather = defineTool({
      name: 'weather',
      description: '',
      input: z.object({ city: z.string() }),
      execute: ({ city }, toolCtx) => {
        toolCtx.emit(`looking up ${city}...`);
        toolCtx.emit({ message: 'half way', progress: 1, total: 2 });
        return { city, tempC: 21 };
      },
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'weather', input: { city: 'Paris' } }] },
      { text: 'Sunny.' },
    ]);
    const agent = new Agent({ model, tools: [weather] });
    const events = await runReply(agent, agent.reply('weather?'));
    const callId = ofType(events, 'TOOL_CALL_START')[0]!.toolCallId;
    const blockId = ofType(events, 'TOOL_RESULT_START')[0]!.blockId;
    expect(
      ofType(events, 'TOOL_PROGRESS').map(({ blockId: b, toolCallId, message, progress, total }) => ({
        b,
        toolCallId,
        message,
        progress,
        total,
      })),
    ).toEqual([
      { b: blockId, toolCallId: callId, message: 'looking up Paris...', progress: undefined, total: undefined },
      { b: blockId, toolCallId: callId, message: 'half way', progress: 1, total: 2 },
    ]);
    // A UI joining the result deltas shows the result only.
    expect(
      ofType(events, 'TOOL_RESULT_DELTA')
        .map((e) => e.delta)
        .join(''),
    ).toBe('{"city":"Paris","tempC":21}');
    const types = events.map((e) => e.type);
    expect(types.indexOf('TOOL_RESULT_START')).toBeLessThan(types.indexOf('TOOL_PROGRESS'));
    expect(types.lastIndexOf('TOOL_PROGRESS')).toBeLessThan(types.indexOf('TOOL_RESULT_END'));
  });

  it('streams partial output as TOOL_RESULT_DELTA; the values together form the result', async () => {
    const countdown = defineTool({
      name: 'countdown',
      description: '',
      input: z.object({ from: z.number() }),
      execute: ({ from }, ctx) => {
        ctx.emit('starting… ');
        return interval(1).pipe(
          take(from),
          map((i) => `${from - i} `),
        );
      },
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'countdown', input: { from: 3 } }] },
      { text: 'liftoff' },
    ]);
    const agent = new Agent({ model, tools: [countdown] });
    const events = await runReply(agent, agent.reply('count'));
    expect(ofType(events, 'TOOL_PROGRESS').map((e) => e.message)).toEqual(['starting… ']);
    expect(ofType(events, 'TOOL_RESULT_DELTA').map((e) => e.delta)).toEqual(['3 ', '2 ', '1 ']);
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.output).toEqual([{ type: 'text', text: '3 2 1 ' }]);
  });

  it('runs consecutive concurrency-safe calls in parallel (bounded) with results in call order', async () => {
    let running = 0;
    let peak = 0;
    const fetchTool = defineTool({
      name: 'fetch',
      description: '',
      input: z.object({ id: z.number(), ms: z.number() }),
      readOnly: true,
      execute: async ({ id, ms }) => {
        running++;
        peak = Math.max(peak, running);
        await sleep(ms);
        running--;
        return `doc ${id}`;
      },
    });
    const delays = [40, 5, 25, 1, 15];
    const model = new ScriptedChatModel([
      { toolCalls: delays.map((ms, id) => ({ id: `c${id}`, name: 'fetch', input: { id, ms } })) },
      { text: 'read them all' },
    ]);
    const agent = new Agent({ model, tools: [fetchTool], maxConcurrentTools: 3 });
    const events = await runReply(agent, agent.reply('fetch'));
    expect(peak).toBe(3);
    // Finished out of order...
    expect(ofType(events, 'TOOL_RESULT_END').map((e) => e.toolCallId)).not.toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    // ...but stored (and folded by any consumer) in call order.
    const results = toolResultsOf(agent.context[1]!);
    expect(results.map((r) => r.toolCallId)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(results.map((r) => (r.output[0] as { text: string }).text)).toEqual([
      'doc 0',
      'doc 1',
      'doc 2',
      'doc 3',
      'doc 4',
    ]);
  });

  it('runs calls that are not concurrency-safe one at a time, in order', async () => {
    const order: string[] = [];
    let running = 0;
    const write = defineTool({
      name: 'write',
      description: '',
      input: z.object({ n: z.number() }),
      execute: async ({ n }) => {
        running++;
        order.push(`start ${n} (running ${running})`);
        await sleep(5 - n);
        running--;
        order.push(`end ${n}`);
        return 'ok';
      },
    });
    const read = defineTool({ name: 'read', description: '', input: z.object({}), readOnly: true, execute: () => 'r' });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'write', input: { n: 1 } },
          { name: 'write', input: { n: 2 } },
          { name: 'read', input: {} },
          { name: 'write', input: { n: 3 } },
        ],
      },
      { text: 'done' },
    ]);
    const agent = new Agent({ model, tools: [write, read] });
    await runReply(agent, agent.reply('go'));
    expect(order).toEqual([
      'start 1 (running 1)',
      'end 1',
      'start 2 (running 1)',
      'end 2',
      'start 3 (running 1)',
      'end 3',
    ]);
    expect(toolResultsOf(agent.context[1]!).map((r) => r.name)).toEqual(['write', 'write', 'read', 'write']);
  });

  it('accepts any ObservableInput and JSON values as output', async () => {
    const json = defineTool({
      name: 'json',
      description: '',
      input: z.object({}),
      execute: () => Promise.resolve({ temp: 21 }),
    });
    const plain = defineTool({ name: 'plain', description: '', input: z.object({}), execute: () => 'one string' });
    const num = defineTool({ name: 'num', description: '', input: z.object({}), execute: () => 42 });
    const gen = defineTool({
      name: 'gen',
      description: '',
      input: z.object({}),
      execute: async function* () {
        yield 'a';
        yield 'b';
      },
    });
    const image = defineTool({
      name: 'image',
      description: '',
      input: z.object({}),
      execute: () => [{ type: 'data', mediaType: 'image/png', data: 'iVBORw0KGgo=' }] as const,
    });
    const model = new ScriptedChatModel([
      { toolCalls: ['json', 'gen', 'image', 'plain', 'num'].map((name) => ({ name, input: {} })) },
      { text: 'ok' },
    ]);
    const agent = new Agent({ model, tools: [json, gen, image, plain, num] });
    const events = await runReply(agent, agent.reply('x'));
    // A returned string is one delta, not one per character.
    expect(ofType(events, 'TOOL_RESULT_DELTA').map((e) => e.delta)).toEqual([
      '{"temp":21}',
      'a',
      'b',
      '[image/png]',
      'one string',
      '42',
    ]);
    expect(toolResultsOf(agent.context[1]!).map((r) => r.output)).toEqual([
      [{ type: 'text', text: '{"temp":21}' }],
      [{ type: 'text', text: 'ab' }],
      [{ type: 'data', mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
      [{ type: 'text', text: 'one string' }],
      [{ type: 'text', text: '42' }],
    ]);
  });
});
