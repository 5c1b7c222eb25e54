// @rxscope/angular — a signals-based chat over an rxscope agent's event stream.
export { provideRxscope, RXSCOPE_CONFIG } from './provide-rxscope.js';
export type { RxscopeConfig, RxscopeTransport } from './provide-rxscope.js';
export { injectAgentChat } from './agent-chat.js';
export type { AgentChat, InjectAgentChatOptions } from './agent-chat.js';
export type { AgentChatRequest } from './agent-chat-request.js';
export type {
  AgentChatError,
  AgentChatStatus,
  ChatMessage,
  ChatToolCall,
  ChatToolCallStatus,
  PendingConfirmation,
} from './chat-types.js';
