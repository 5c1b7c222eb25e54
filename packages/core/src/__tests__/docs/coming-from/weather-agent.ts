import { z } from 'zod';
import { Agent, type ChatModel, defineTool, textOfMsg } from '../../../index.js';

const getWeather = defineTool({
  name: 'get_weather', // LangChain `name`; the AI SDK's key in `tools`
  description: 'Current weather for a city, in °C',
  input: z.object({ city: z.string() }), // LangChain `schema`, AI SDK `inputSchema`, Agents `parameters`
  readOnly: true, // may run in parallel, never asks for approval
  execute: ({ city }) => ({ city, tempC: 21 }), // strings, objects, Promises, Observables, generators
});

const toFahrenheit = defineTool({
  name: 'to_fahrenheit',
  description: 'Converts °C to °F',
  input: z.object({ celsius: z.number() }),
  readOnly: true,
  execute: ({ celsius }) => String((celsius * 9) / 5 + 32),
});

export const weatherTools = [getWeather, toFahrenheit];

export function weatherAgent(model: ChatModel): Agent {
  // One Agent is one conversation (LangChain's thread, an Agents SDK session): it keeps its messages.
  return new Agent({
    name: 'weather',
    sysPrompt: 'You answer weather questions with the tools.', // systemPrompt / system / instructions
    model,
    tools: weatherTools,
    maxIters: 5, // recursionLimit / stopWhen: stepCountIs(5) / maxTurns
  });
}

export async function askTwoWays(agent: Agent): Promise<string> {
  // invoke() / generateText() / run(): the final message
  const first = textOfMsg(await agent.call('What is the weather in Paris, in °F?'));

  // stream() / streamText() / run(..., { stream: true }): typed events, cancelled by unsubscribing
  let second = '';
  await new Promise<void>((resolve) =>
    agent.reply('And in Oslo?').subscribe({
      next: (event) => {
        if (event.type === 'TOOL_CALL_START') console.log(`[${event.name}]`);
        if (event.type === 'TEXT_BLOCK_DELTA') second += event.delta;
        if (event.type === 'REPLY_END' && event.finishReason === 'error') console.error(event.error);
      },
      complete: resolve,
    }),
  );
  return `${first}\n${second}`;
}
