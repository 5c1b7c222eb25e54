import { DynamicStructuredTool, tool } from '@langchain/core/tools';
import { z } from 'zod';
import { Agent, type ChatModel } from '../../../index.js';
import { fromLangChainTool, fromLangChainTools } from '../../../langchain/index.js';

// A LangChain tool as you have it...
const weather = tool(async ({ city }) => `Sunny in ${city}`, {
  name: 'weather',
  description: 'Current weather of a city',
  schema: z.object({ city: z.string() }),
});

// ...or one described in JSON Schema (as LangChain's MCP tools are).
const timezone = new DynamicStructuredTool({
  name: 'timezone',
  description: 'Time zone of a city',
  schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
  func: async ({ city }: { city: string }) => (city === 'Tokyo' ? 'Asia/Tokyo' : 'Europe/Paris'),
});

export function travelAgent(model: ChatModel): Agent {
  return new Agent({
    name: 'travel',
    model,
    // read-only like any tool: spread the converted tool and set the flag
    tools: [{ ...fromLangChainTool(weather), readOnly: true }, ...fromLangChainTools([timezone])],
  });
}
