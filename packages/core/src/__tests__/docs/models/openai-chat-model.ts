import { Agent, type Tool } from '../../../index.js';
import { OpenAIChatModel } from '../../../model/openai/index.js';

export async function whatIsTwoPlusThree(add: Tool) {
  const model = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: process.env.OPENAI_API_KEY });
  const agent = new Agent({ model, tools: [add] });
  return agent.call('What is 2 + 3?');
}

export const localModel = () =>
  new OpenAIChatModel({ model: 'qwen3:8b', baseURL: 'http://localhost:11434/v1', apiKey: null }); // no key on purpose
