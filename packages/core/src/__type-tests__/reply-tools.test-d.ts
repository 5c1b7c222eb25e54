/**
 * Type tests of the tools of one reply: `reply(input, {tools})` takes tools of any input type
 * (an `externalTool` from a JSON Schema, a `defineTool` tool), together with `output`; plain
 * objects are not tools.
 */
import { z } from 'zod';
import { Agent, defineTool, externalTool, type Tool } from '../index.js';
import { ScriptedChatModel } from '../testing/index.js';
import { type Equal, type Expect } from './helpers.test-d.js';

const agent = new Agent({ model: new ScriptedChatModel([]) });
const pickDate = externalTool({ name: 'pick_date', description: 'x', parameters: { type: 'object' } });
const quote = defineTool({
  name: 'quote',
  description: 'x',
  input: z.object({ cart: z.string() }),
  execute: () => '1',
});

export type ExternalInput = Expect<Equal<typeof pickDate, Tool<Record<string, unknown>>>>;
void agent.reply('x', { tools: [pickDate, quote] });
void agent.call('x', { tools: [pickDate], output: z.object({ day: z.string() }) }).then((v: { day: string }) => v.day);

// @ts-expect-error -- a plain object is not a tool
void agent.reply('x', { tools: [{ name: 'x' }] });
// @ts-expect-error -- parameters is a JSON Schema object
externalTool({ name: 'x', description: 'x', parameters: 'object' });
