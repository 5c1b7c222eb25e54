import type { StandardSchemaV1 } from '@standard-schema/spec';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import { lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { z as z3v4 } from 'zod3/v4';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { Agent } from '../agent/agent.js';
import type { AgentEvent, AgentEventOf } from '../event/events.js';
import { OpenAIChatModel } from '../model/openai/openai-chat-model.js';
import { assertReplyGrammar } from '../testing/grammar.js';
import { startOpenAITestServer, type OpenAITestServer } from '../testing/node/index.js';
import { jsonSchemaInput } from './json-schema-input.js';
import { SchemaError } from './schema-error.js';
import { issuePath } from './standard-schema.js';
import { defineTool, type Tool } from './tool.js';
import { validateToolInput } from './validate.js';

/** What every library's schema of the same arguments must send to the model (zod adds the safe integer bounds). */
const WEATHER_PARAMETERS = {
  type: 'object',
  properties: { city: { type: 'string' }, days: expect.objectContaining({ type: 'integer' }) },
  required: ['city'],
};

type Weather = { city: string; days?: number | undefined };

/**
 * One tool, `weather {city: string, days?: integer}`, defined with each schema library rxscope
 * takes, run against the OpenAI test server through the real adapter: the request carries the
 * JSON Schema, bad arguments get an error result naming the field, good ones run.
 */
describe('tool input schemas of every library, on the wire', () => {
  let server: OpenAITestServer;
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const agentWith = (tool: Tool) =>
    new Agent({
      name: 'forecaster',
      model: new OpenAIChatModel({
        model: 'gpt-test',
        apiKey: 'sk-test',
        baseURL: server.url,
        configuration: { logLevel: 'off' },
      }),
      tools: [tool],
    });

  const weatherTool = (input: StandardSchemaV1<unknown, Weather>, calls: Weather[]) =>
    defineTool({
      name: 'weather',
      description: 'Forecast of a city',
      input,
      execute: (args) => {
        calls.push(args);
        return `Sunny in ${args.city} for ${args.days ?? 1} day(s)`;
      },
    });

  async function run(tool: Tool): Promise<{ events: AgentEvent[]; results: AgentEventOf<'TOOL_RESULT_END'>[] }> {
    server.enqueue(
      { toolCalls: [{ name: 'weather', arguments: '{"city":42,"days":2}' }] },
      { toolCalls: [{ name: 'weather', input: { city: 'Oslo', days: 2 } }] },
      { text: 'Sunny in Oslo.' },
    );
    const events = await lastValueFrom(agentWith(tool).reply('Weather in Oslo?').pipe(toArray()));
    assertReplyGrammar(events);
    const results = events.filter((e): e is AgentEventOf<'TOOL_RESULT_END'> => e.type === 'TOOL_RESULT_END');
    return { events, results };
  }

  const textOf = (result: AgentEventOf<'TOOL_RESULT_END'>) =>
    result.output.map((b) => (b.type === 'text' ? b.text : '')).join('');

  const libraries: [string, () => StandardSchemaV1<unknown, Weather>, RegExp][] = [
    [
      'zod 4',
      () => z.object({ city: z.string(), days: z.number().int().optional() }),
      /- city: expected string, received number/,
    ],
    [
      'zod 4 of zod 3.25 (zod/v4)',
      () => z3v4.object({ city: z3v4.string(), days: z3v4.number().int().optional() }),
      /- city: expected string, received number/,
    ],
    [
      'zod 3 with zod-to-json-schema',
      () => {
        const schema = z3.object({ city: z3.string(), days: z3.number().int().optional() });
        // `as never`: here zod-to-json-schema's types name the workspace's zod 4 (its zod/v3), not the
        // zod 3 under the alias; in a zod 3 project they name that project's zod 3.
        return jsonSchemaInput(zodToJsonSchema(schema as never), schema);
      },
      /- city: Expected string, received number/,
    ],
    [
      'valibot with @valibot/to-json-schema',
      () => toStandardJsonSchema(v.object({ city: v.string(), days: v.optional(v.pipe(v.number(), v.integer())) })),
      /- city: Invalid type: Expected string but received 42/,
    ],
    [
      'arktype',
      () => type({ city: 'string', 'days?': 'number.integer' }),
      /- city: city must be a string \(was a number\)/,
    ],
    [
      'a plain JSON Schema',
      () =>
        jsonSchemaInput<Weather>({
          type: 'object',
          properties: { city: { type: 'string' }, days: { type: 'integer' } },
          required: ['city'],
        }),
      /- city: expected string, received number/,
    ],
  ];

  it.each(libraries)(
    '%s: the model gets the JSON Schema, bad input an error naming the field, good input runs',
    async (_, make, error) => {
      const calls: Weather[] = [];
      const { events, results } = await run(weatherTool(make(), calls));

      const offered = server.requests[0]!.body.tools!.map((t) => t.function);
      expect(offered).toEqual([
        {
          name: 'weather',
          description: 'Forecast of a city',
          parameters: expect.objectContaining(WEATHER_PARAMETERS),
        },
      ]);
      expect((offered[0]!.parameters as Record<string, unknown>)['$schema']).toBeUndefined();

      expect(results.map((r) => r.status)).toEqual(['error', 'success']);
      expect(textOf(results[0]!)).toMatch(error);
      expect(textOf(results[0]!)).toMatch(/^Invalid arguments for tool "weather":/);
      expect(calls).toEqual([{ city: 'Oslo', days: 2 }]);
      expect(textOf(results[1]!)).toBe('Sunny in Oslo for 2 day(s)');
      // The error result went to the model as the tool message of its call.
      const toolMessage = server.requests[1]!.body.messages!.find((m) => m.role === 'tool');
      expect(JSON.stringify(toolMessage)).toMatch(/city/);
      expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    },
  );

  it('a JSON Schema input reports a missing field with its expected type, and an unknown one when it is closed', () => {
    const tool = defineTool({
      name: 'book',
      description: 'Books a room',
      input: jsonSchemaInput({
        type: 'object',
        properties: { room: { type: 'string' }, nights: { type: 'integer', minimum: 1 } },
        required: ['room', 'nights'],
        additionalProperties: false,
      }),
      execute: () => 'booked',
    });
    const verdict = tool.inputSchema['~standard'].validate({ nights: 0, pets: true }) as StandardSchemaV1.FailureResult;
    expect(verdict.issues.map((i) => `${issuePath(i)}: ${i.message}`).sort()).toEqual([
      'nights: must be >= 1',
      'pets: unknown field (not in the schema)',
      'room: expected string, received undefined',
    ]);
  });
});

describe('schemas that give no JSON Schema, and what is not a schema', () => {
  const define = (input: unknown) => () =>
    defineTool({ name: 'weather', description: 'Forecast', input: input as StandardSchemaV1, execute: () => '' });

  const refusal = (fn: () => unknown): SchemaError => {
    try {
      fn();
    } catch (e) {
      if (e instanceof SchemaError) return e;
      throw e;
    }
    throw new Error('not refused');
  };

  it('a zod 3 schema is refused with schema_no_json_schema, naming jsonSchemaInput and zod/v4', () => {
    const e = refusal(define(z3.object({ city: z3.string() })));
    expect(e.code).toBe('schema_no_json_schema');
    expect(e.message).toContain('Tool "weather": its input schema: this zod schema gives no JSON Schema');
    expect(e.message).toContain('jsonSchemaInput(zodToJsonSchema(schema), schema)');
    expect(e.message).toContain('"zod/v4"');
  });

  it('a bare valibot schema is refused, naming toStandardJsonSchema of @valibot/to-json-schema', () => {
    const e = refusal(define(v.object({ city: v.string() })));
    expect(e.code).toBe('schema_no_json_schema');
    expect(e.message).toContain('toStandardJsonSchema(schema) from @valibot/to-json-schema');
    expect(e.message).toContain('jsonSchemaInput(');
  });

  it('a plain JSON Schema without jsonSchemaInput, or nothing, is refused with schema_unsupported', () => {
    const plain = refusal(define({ type: 'object', properties: { city: { type: 'string' } } }));
    expect(plain.code).toBe('schema_unsupported');
    expect(plain.message).toContain('wrap it, jsonSchemaInput({ type: "object", ... })');
    expect(refusal(define(undefined)).message).toMatch(/input must be a schema: .* got nothing\.$/);
  });

  it('a schema of something else than an object is refused with schema_not_object, whatever the library', () => {
    expect(refusal(define(type('string'))).code).toBe('schema_not_object');
    expect(refusal(define(jsonSchemaInput({ type: 'array' }))).message).toContain('but it is an array');
  });

  it('a JSON Schema with properties but no type is sent as an object', () => {
    const tool = defineTool({
      name: 'find',
      description: 'Finds',
      input: jsonSchemaInput({ properties: { q: { type: 'string' } }, required: ['q'] }),
      execute: () => '',
    });
    expect(tool.schema.parameters).toEqual({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
    expect(refusal(define(jsonSchemaInput({ description: 'anything' }))).code).toBe('schema_not_object');
  });

  it('a JSON Schema that cannot be compiled is refused when it is given', () => {
    const e = refusal(() => jsonSchemaInput({ type: 'object', properties: { a: { type: 'no-such-type' } } }));
    expect(e.code).toBe('schema_invalid');
    expect(e.message).toMatch(/^jsonSchemaInput\(\): the JSON Schema cannot be compiled: /);
  });

  it('a schema that validates asynchronously gives the model an error result saying so (nothing runs)', () => {
    const execute = jest.fn(() => 'ran');
    const tool = defineTool({
      name: 'weather',
      description: 'Forecast',
      input: z.object({ city: z.string() }).refine(async () => true),
      execute,
    });
    const verdict = validateToolInput(tool, { city: 'Oslo' });
    expect(verdict).toMatchObject({ ok: false, message: expect.stringMatching(/validates asynchronously/) });
    expect(execute).not.toHaveBeenCalled();
  });
});
