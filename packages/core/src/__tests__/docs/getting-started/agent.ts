import { z } from 'zod';
import { Agent, defineTool } from '../../../index.js';
import { ScriptedChatModel } from '../../../testing/index.js';

// 1. A tool: a name, a description for the model, a zod schema, and `execute`.
const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string().describe('City name, e.g. "Paris"') }),
  readOnly: true,
  execute: ({ city }) => ({ city, tempC: 21, sky: 'sunny' }), // `city` is typed string
});

// 2. A model. This one asks for the tool, then answers with two text chunks.
const model = new ScriptedChatModel([
  { toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }] },
  { text: ['It is 21 °C ', 'and sunny in Paris.'] },
]);

// 3. The agent.
const agent = new Agent({
  name: 'assistant',
  sysPrompt: 'You are a concise weather assistant.',
  model,
  tools: [getWeather],
});

// 4. One reply = one subscription. Render text as it streams.
agent.reply('What is the weather in Paris?').subscribe({
  next: (e) => {
    if (e.type === 'TEXT_BLOCK_DELTA') process.stdout.write(e.delta);
    if (e.type === 'TOOL_CALL_START') process.stdout.write(`[calling ${e.name}]\n`);
    if (e.type === 'REPLY_END') process.stdout.write(`\n(${e.finishReason})\n`);
    // A failed model call or tool loop ends the reply with an error: show it, exit 1.
    if (e.type === 'REPLY_END' && e.error) {
      console.error(`The reply failed: ${e.error.message}`);
      process.exitCode = 1;
    }
  },
  error: (err: unknown) => {
    console.error(err); // the agent refused the input before the reply started
    process.exitCode = 1;
  },
});
