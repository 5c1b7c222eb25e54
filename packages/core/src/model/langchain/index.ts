// @rxscope/core/langchain — any LangChain chat model as an rxscope ChatModel (needs the optional
// peer @langchain/core).
export { LangChainChatModel } from './langchain-chat-model.js';
export type { LangChainChatModelOptions } from './langchain-chat-model.js';
export { toLangChainMessages } from './langchain-messages.js';
