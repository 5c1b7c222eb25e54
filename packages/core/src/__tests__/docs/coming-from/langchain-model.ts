import { ChatOpenAI } from '@langchain/openai';
import { Agent, type Tool } from '../../../index.js';
import { LangChainChatModel } from '../../../langchain/index.js';

// Keep the LangChain chat model you configured (any provider); rxscope runs the loop around it.
export function withYourChatModel(tools: readonly Tool[], apiKey = process.env.OPENAI_API_KEY, baseURL?: string) {
  const chat = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey, configuration: { baseURL } });
  return new Agent({ name: 'weather', model: new LangChainChatModel({ model: chat }), tools });
}
