/**
 * Type tests of `agent.asTool()`: the tool's input type follows the `input` schema (default
 * `{message: string}`), `prompt` receives that type, and the result is a `Tool` that fits the
 * `tools` of another agent.
 */
import { z } from 'zod';
import { Agent, type Tool, type ToolContext, agentAsTool } from '../index.js';
import { ScriptedChatModel } from '../testing/index.js';
import { exact, expectType } from './helpers.test-d.js';

const inner = new Agent({ name: 'researcher', model: new ScriptedChatModel([{ text: 'hi' }]) });

// Default input: {message: string}.
const plain = inner.asTool({ description: 'Researches a question.' });
exact<Tool<{ message: string }>>()(plain);

// A custom input types `prompt` and the tool.
const translate = inner.asTool({
  name: 'translate',
  description: 'Translates text.',
  input: z.object({ text: z.string(), to: z.enum(['fr', 'de']).default('fr') }),
  prompt: (input) => {
    exact<{ text: string; to: 'fr' | 'de' }>()(input);
    return `Translate into ${input.to}: ${input.text}`;
  },
});
exact<Tool<{ text: string; to: 'fr' | 'de' }>>()(translate);

// The same through the function form.
exact<Tool<{ message: string }>>()(agentAsTool(inner, { description: 'x' }));

// Agent tools fit into another agent's tools.
new Agent({ name: 'lead', model: new ScriptedChatModel([]), tools: [plain, translate] });

// @ts-expect-error -- a description is required
inner.asTool({ name: 'x' });

inner.asTool({
  description: 'x',
  // @ts-expect-error -- prompt receives the default input, which has no `text`
  prompt: (input) => String(input.text),
});

// Tools can forward events of other agents.
declare const toolCtx: ToolContext;
expectType<(event: Parameters<ToolContext['forward']>[0]) => void>(toolCtx.forward);
