/**
 * Type tests of the schemas rxscope takes besides zod 4: zod 3 (3.25+), valibot, arktype and
 * plain JSON Schema. A tool's `execute` gets the schema's output type; `jsonSchemaInput` gives
 * `unknown` unless told the type, or the type of the schema validating it; `call(input, {output})`
 * resolves with the output type; `Tool<I>` carries it.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z as z3 } from 'zod3';
import { Agent, defineTool, jsonSchemaInput, type SchemaOutput, type Tool } from '../index.js';
import { ScriptedChatModel } from '../testing/index.js';
import { exact, type Equal, type Expect } from './helpers.test-d.js';

// zod 3: accepted as a Standard Schema (no more type error about zod's internals); typed.
const zod3Input = z3.object({ city: z3.string(), days: z3.number().default(1) });
export const zod3Tool = defineTool({
  name: 'weather',
  description: 'Forecast',
  input: jsonSchemaInput({ type: 'object' }, zod3Input),
  execute: (input) => {
    exact<{ city: string; days: number }>()(input);
    return input.city;
  },
});
exact<Tool<{ city: string; days: number }>>()(zod3Tool);
// A bare zod 3 schema type-checks too (it is refused at run time, naming jsonSchemaInput).
export const bareZod3 = () =>
  defineTool({
    name: 'weather',
    description: 'Forecast',
    input: zod3Input,
    execute: (input) => {
      exact<{ city: string; days: number }>()(input);
      return input.city;
    },
  });

// valibot: the output type (transforms and defaults applied).
const valibotInput = toStandardJsonSchema(
  v.object({
    city: v.string(),
    days: v.optional(v.number(), 1),
    tags: v.pipe(
      v.string(),
      v.transform((s) => s.split(',')),
    ),
  }),
);
export const valibotTool = defineTool({
  name: 'weather',
  description: 'Forecast',
  input: valibotInput,
  needsApproval: (input) => input.days > 7,
  execute: (input) => {
    exact<{ city: string; days: number; tags: string[] }>()(input);
    // @ts-expect-error -- not a field of the schema
    void input.country;
    return input.city;
  },
});

// arktype: `.infer`.
export const arkTool = defineTool({
  name: 'weather',
  description: 'Forecast',
  input: type({ city: 'string', 'days?': 'number' }),
  execute: (input) => {
    exact<{ city: string; days?: number }>()(input);
    return input.city;
  },
});

// Plain JSON Schema: unknown unless given a type.
export const untyped = defineTool({
  name: 'raw',
  description: 'Raw',
  input: jsonSchemaInput({ type: 'object', properties: { q: { type: 'string' } } }),
  execute: (input) => {
    exact<unknown>()(input);
    return 'ok';
  },
});
export const typed = defineTool({
  name: 'search',
  description: 'Search',
  input: jsonSchemaInput<{ q: string; limit?: number }>({ type: 'object', properties: { q: { type: 'string' } } }),
  execute: (input) => {
    exact<{ q: string; limit?: number }>()(input);
    return input.q;
  },
});

// Structured output with each.
const agent = new Agent({ model: new ScriptedChatModel([]) });
exact<Promise<{ city: string; days: number; tags: string[] }>>()(agent.call('x', { output: valibotInput }));
exact<Promise<{ total: number }>>()(
  agent.call('x', { output: jsonSchemaInput<{ total: number }>({ type: 'object' }) }),
);
exact<Promise<unknown>>()(agent.call('x', { output: jsonSchemaInput({ type: 'object' }) }));
exact<Promise<{ city: string; days?: number }>>()(
  agent.call('x', { output: type({ city: 'string', 'days?': 'number' }) }),
);

// asTool with another library's input.
export const asTool = agent.asTool({
  description: 'Prices an order',
  input: toStandardJsonSchema(v.object({ order: v.string() })),
  prompt: (input) => {
    exact<{ order: string }>()(input);
    return input.order;
  },
});
exact<Tool<{ order: string }>>()(asTool);

export type SchemaOutputIsTheLibrarysOutput = Expect<
  Equal<SchemaOutput<typeof zod3Input>, { city: string; days: number }>
>;
