// @rxscope/core/langchain — any LangChain chat model as an rxscope ChatModel, and LangChain tools
// as rxscope tools (needs the optional peer @langchain/core).
export { LangChainChatModel } from './langchain-chat-model.js';
export type { LangChainChatModelOptions } from './langchain-chat-model.js';
export { toLangChainMessages } from './langchain-messages.js';
export { fromLangChainTool, fromLangChainTools, LangChainToolError, langChainToolOutput } from './langchain-tool.js';
export type { LangChainTools } from './langchain-tool.js';
