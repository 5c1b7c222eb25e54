import { textOfMsg, type Agent } from '../../../index.js';

export async function askForTheWeather(agent: Agent) {
  const msg = await agent.call('What is the weather in Paris?');
  return {
    text: textOfMsg(msg), // 'It is 21 °C and sunny in Paris.'
    blocks: msg.content.map((b) => b.type), // ['tool_call', 'tool_result', 'text']
    metadata: msg.metadata, // { replyId, finishReason: 'completed', usage: { inputTokens, outputTokens } }
  };
}
