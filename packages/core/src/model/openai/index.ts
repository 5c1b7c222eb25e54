// @rxscope/core/openai — the OpenAI-compatible chat model (needs the optional peers
// @langchain/openai and @langchain/core).
export { OpenAIChatModel } from './openai-chat-model.js';
export type { OpenAIChatModelOptions } from './openai-chat-model-options.js';
export { toOpenAIMessages } from './openai-messages.js';
export type { OpenAIContentPart, OpenAIWireMessage, ToOpenAIMessagesOptions } from './openai-messages.js';
