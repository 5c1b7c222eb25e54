/**
 * Type tests of `defineTool`: the zod schema types `execute`, `needsApproval` and
 * `checkPermissions`, and what `execute` may return.
 */
import { type Observable, type ObservableInput, of } from 'rxjs';
import { z } from 'zod';
import { Agent, type Middleware, type Tool, type ToolContext, type ToolOutput, defineTool } from '../index.js';
import { ScriptedChatModel } from '../testing/index.js';
import { exact, type Equal, type Expect } from './helpers.test-d.js';

const weatherInput = z.object({
  city: z.string(),
  days: z.number().int().default(1),
  unit: z.enum(['C', 'F']).optional(),
});

export const weather = defineTool({
  name: 'get_weather',
  description: 'Weather forecast for a city',
  input: weatherInput,
  readOnly: true,
  needsApproval: (input) => {
    exact<string>()(input.city);
    return input.days > 7;
  },
  checkPermissions: (input) =>
    input.city === 'Atlantis' ? { behavior: 'deny', reason: 'no such city' } : { behavior: 'allow' },
  execute: (input, toolCtx) => {
    // The input is the schema's *output* type: defaults applied, optionals optional.
    exact<{ city: string; days: number; unit?: 'C' | 'F' | undefined }>()(input);
    exact<ToolContext>()(toolCtx);
    exact<AbortSignal>()(toolCtx.signal);
    exact<string>()(toolCtx.callId);
    toolCtx.emit('fetching...');
    // @ts-expect-error -- not a field of the schema
    void input.country;
    // @ts-expect-error -- the input is typed: days is a number
    const _days: string = input.days;
    return Promise.resolve({ city: input.city, tempC: 21 });
  },
});
type _tool = Expect<Equal<typeof weather, Tool<{ city: string; days: number; unit?: 'C' | 'F' | undefined }>>>;
type _schema = Expect<Equal<Tool['schema']['parameters'], Readonly<Record<string, unknown>>>>;

// Transforms: execute receives the output of the schema.
export const lengths = defineTool({
  name: 'lengths',
  description: 'Length of a text',
  input: z.object({ text: z.string().transform((s) => s.length) }),
  execute: ({ text }) => {
    exact<number>()(text);
    return of(String(text));
  },
});

// Accepted results: a plain value, or anything ObservableInput of ToolOutput.
export const plainString = defineTool({ name: 's', description: 's', input: z.object({}), execute: () => 'one value' });
export const plainObject = defineTool({
  name: 'o',
  description: 'o',
  input: z.object({}),
  execute: () => ({ temp: 21 }),
});
export const fromObservable = defineTool({
  name: 'a',
  description: 'a',
  input: z.object({}),
  execute: () => of('x', 'y'),
});
export const fromPromise = defineTool({
  name: 'b',
  description: 'b',
  input: z.object({}),
  execute: () => Promise.resolve({ ok: true }),
});
export const fromArray = defineTool({
  name: 'c',
  description: 'c',
  input: z.object({}),
  execute: () => [{ type: 'text' as const, text: 'x' }],
});
export const fromGenerator = defineTool({
  name: 'd',
  description: 'd',
  input: z.object({}),
  async *execute(_input, toolCtx) {
    yield 'partial ';
    await new Promise((resolve) => setTimeout(resolve, 1, toolCtx.signal));
    yield 'done';
  },
});
type _output = Expect<Equal<ReturnType<NonNullable<Tool['execute']>>, ObservableInput<ToolOutput> | ToolOutput>>;
export const external = defineTool({
  name: 'e',
  description: 'e',
  input: z.object({ cmd: z.string() }),
  external: true,
});

export const forgotReturn = defineTool({
  name: 'f',
  description: 'f',
  input: z.object({}),
  // @ts-expect-error -- execute must return its output (void is not a tool output)
  execute: () => {
    void 0;
  },
});
export const wrongInput = defineTool({
  name: 'g',
  description: 'g',
  input: z.object({ n: z.number() }),
  // @ts-expect-error -- execute's parameter must accept the schema's output type
  execute: (input: { n: string }) => of(input.n),
});
export const wrongDecision = defineTool({
  name: 'h',
  description: 'h',
  input: z.object({}),
  // @ts-expect-error -- not a permission decision
  checkPermissions: () => ({ behavior: 'maybe' }),
  execute: () => of('x'),
});
// @ts-expect-error -- `input` (the zod schema) is required
export const noSchema = defineTool({ name: 'i', description: 'i', execute: () => of('x') });
export const jsonSchema = defineTool({
  name: 'j',
  description: 'j',
  // @ts-expect-error -- the schema must be a zod type
  input: { type: 'object' },
  execute: () => of('x'),
});

export function observableResult(t: typeof weather): Observable<unknown> | undefined {
  exact<boolean>()(t.readOnly);
  exact<boolean>()(t.concurrencySafe);
  return undefined;
}

// Typed tools fit where any tool is expected: `Tool` alone is `Tool<any>`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserting the default type argument
type _anyTool = Expect<Equal<Tool, Tool<any>>>;
export const toolList: readonly Tool[] = [weather, lengths, fromGenerator];
export const agentWithTools = new Agent({ model: new ScriptedChatModel([]), tools: [weather, lengths] });
export const provider: Middleware = { tools: () => [weather] };
