// @rxscope/core/langchain — LangChain in rxscope (needs the optional peer @langchain/core): any
// LangChain chat model as an rxscope ChatModel, and LangChain tools as rxscope tools. The entry
// sits above both floors it gathers (model/ and tool/).
export { LangChainChatModel, toLangChainMessages } from '../model/langchain/index.js';
export type { LangChainChatModelOptions } from '../model/langchain/index.js';
export {
  fromLangChainTool,
  fromLangChainTools,
  LangChainToolError,
  langChainToolOutput,
} from '../tool/langchain/langchain-tool.js';
export type { LangChainTools } from '../tool/langchain/langchain-tool.js';
