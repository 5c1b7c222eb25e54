import { Agent, textOfMsg, type Tool } from '../../../index.js';
import { OpenAIChatModel } from '../../../model/openai/index.js'; // npm install @langchain/openai @langchain/core
import type { ScriptedTurn } from '../../../testing/index.js';
import { startOpenAITestServer } from '../../../testing/node/index.js';

export async function weatherOverHttp(getWeather: Tool) {
  const turns: ScriptedTurn[] = [
    { toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }] },
    { text: ['It is 21 °C ', 'and sunny in Paris.'], usage: { inputTokens: 80, outputTokens: 9 } },
  ];
  const server = await startOpenAITestServer({ script: turns }); // new ScriptedChatModel(turns) plays the same in memory
  try {
    const model = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'test', baseURL: server.url });
    const agent = new Agent({ model, tools: [getWeather] });
    const msg = await agent.call('What is the weather in Paris?');
    return {
      text: textOfMsg(msg), // 'It is 21 °C and sunny in Paris.'
      toolMessage: server.requests[1]!.body.messages!.at(-1), // { role: 'tool', content: '{"city":"Paris","tempC":21,"sky":"sunny"}', ... }
    };
  } finally {
    await server.close();
  }
}
