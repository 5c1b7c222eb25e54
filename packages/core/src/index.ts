// @rxscope/core — public API. Explicit named exports only.

// messages
export type {
  ContentBlock,
  DataBlock,
  HintBlock,
  Msg,
  Role,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultBlock,
  ToolResultContent,
  ToolResultStatus,
} from './message/blocks.js';
export { createMsg, textOfMsg, toolCallsOf, toolResultsOf, unansweredToolCalls } from './message/msg.js';
export { createReplyReducer } from './message/reducer.js';
export type { OpenBlock, ReplyReducer, ReplyReducerOptions } from './message/reducer.js';
export { toMessage } from './message/operators.js';

// events
export type {
  AgentEvent,
  AgentEventOf,
  AgentEventType,
  ConfirmResult,
  CustomEvent,
  ErrorInfo,
  EventBase,
  EventFields,
  ExternalExecutionResultEvent,
  ExternalResult,
  ModelCallEndEvent,
  ModelCallStartEvent,
  ModelEvent,
  ModelEventType,
  PendingToolCall,
  ReplyEndEvent,
  ReplyFinishReason,
  ReplyStartEvent,
  RequireExternalExecutionEvent,
  RequireUserConfirmEvent,
  ToolCallStartEvent,
  ToolProgressEvent,
  ToolResultEndEvent,
  Usage,
  UserConfirmResultEvent,
} from './event/events.js';
export { createDeltaEvent, createEvent } from './event/create.js';
export type { DeltaEventType, EventOrigin } from './event/create.js';
export { AGENT_EVENT_TYPES, isAgentEvent, isBlockDelta, isBlockEnd, isBlockStart, isEvent } from './event/guards.js';
export type { BlockDeltaEvent, BlockEndEvent, BlockStartEvent } from './event/guards.js';

// models
export type { ChatModel, ModelOptions, ModelRequest, ToolChoice, ToolSchema } from './model/chat-model.js';
export { ModelError, toErrorInfo } from './model/model-error.js';
export type { ModelErrorOptions } from './model/model-error.js';

// tools
export { defineTool } from './tool/tool.js';
export type { Tool, ToolContext, ToolDefinition, ToolOutput, ToolPermissionDecision, ToolProgress } from './tool/tool.js';
export { parseToolArguments, validateToolInput } from './tool/validate.js';
export type { ParsedArguments } from './tool/validate.js';

// middleware
export { ContextToken } from './middleware/context.js';
export type { RuntimeContext, StateSlot } from './middleware/context.js';
export { ConversationEditError } from './middleware/conversation.js';
export type { BlockRef, Conversation, HintOptions } from './middleware/conversation.js';
export { middlewareKey } from './middleware/middleware.js';
export type { ActingInput, AgentInput, Middleware, ModelCallInput, Next, ReasoningInput } from './middleware/middleware.js';
export { chainFor, composeChain } from './middleware/chain.js';
export type { Chain, Layer, OnionHook } from './middleware/chain.js';

// agent
export { Agent } from './agent/agent.js';
export type { AgentOptions, ReplyInput, ResumeInput } from './agent/agent.js';
export { agentAsTool } from './agent/agent-tool.js';
export type { AgentToolOptions, DefaultAgentToolInput } from './agent/agent-tool.js';
export { AgentError, AgentUsageError } from './agent/errors.js';

// permissions
export { decidePermission } from './permission/engine.js';
export type { PermissionDecision } from './permission/engine.js';
export { Permissions } from './permission/permissions.js';
export { describeRule, ruleMatches } from './permission/rules.js';
export type { PermissionBehavior, PermissionMode, PermissionRule, PermissionState } from './permission/rules.js';

// state and sessions
export { AgentStateError, parseAgentState, STATE_VERSION } from './state/snapshot.js';
export type { AgentStateSnapshot, PendingReply } from './state/snapshot.js';
export { migrateState } from './state/migrations.js';
export { InMemorySessionStore, SessionConflictError, SessionStoreError } from './state/session-store.js';
export type { SessionStore, StoredSession } from './state/session-store.js';

// utilities
export { newId } from './util/id.js';

// models: adapters ------------------------------------------------------------------------------
export { OpenAIChatModel } from './model/openai/openai-chat-model.js';
export type { OpenAIChatModelOptions } from './model/openai/openai-chat-model.js';
export { toOpenAIMessages } from './model/openai/openai-messages.js';
export type { OpenAIContentPart, OpenAIWireMessage, ToOpenAIMessagesOptions } from './model/openai/openai-messages.js';
export { LangChainChatModel } from './model/langchain/langchain-chat-model.js';
export type { LangChainChatModelOptions } from './model/langchain/langchain-chat-model.js';
export { toLangChainMessages } from './model/langchain/langchain-messages.js';
export { parseRetryAfter, toModelError } from './model/to-model-error.js';
// end of models: adapters ------------------------------------------------------------------------

// transport ----------------------------------------------------------------------------------
export {
  AgentStreamError,
  encodeAgentEvent,
  encodeServerSentComment,
  encodeServerSentEvent,
  fromAgentEventStream,
  pendingConfirmations,
  REPLAY_GAP,
  textOf,
  toServerSentEvents,
} from './transport/index.js';
export type {
  AgentEventStreamOptions,
  AgentStreamErrorKind,
  ServerSentEvent,
  ServerSentEventsOptions,
  TextOfOptions,
} from './transport/index.js';
// end of transport ----------------------------------------------------------------------------
