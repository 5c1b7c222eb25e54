// @rxscope/core — public API. Explicit named exports only. What is public and why:
// docs/public-api.md; the engine's own pieces are in @rxscope/core/internal (unstable).

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
export { createReplyReducer } from './event/reducer.js';
export type { OpenBlock, ReplyReducer, ReplyReducerOptions } from './event/reducer.js';

// events
export type {
  AgentEvent,
  AgentEventOf,
  AgentEventType,
  ConfirmResult,
  CustomEvent,
  StateSnapshotEvent,
  StateDeltaEvent,
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
  StopReason,
  RequireExternalExecutionEvent,
  RequireUserConfirmEvent,
  ToolCallStartEvent,
  ToolProgressEvent,
  ToolResultEndEvent,
  Usage,
  UserConfirmResultEvent,
} from './event/events.js';
export { createDeltaEvent, createEvent } from './event/create.js';
export type { DeltaEventType, EventFactory, EventOrigin } from './event/create.js';
export { AGENT_EVENT_TYPES, isAgentEvent, isBlockDelta, isBlockEnd, isBlockStart, isEvent } from './event/guards.js';
export { textOfToolResult } from './event/text-of-tool-result.js';
export type { BlockDeltaEvent, BlockEndEvent, BlockStartEvent } from './event/guards.js';
export { closeBlock, closeOpenStream, OpenStream } from './event/open-stream.js';
export type { CloseOpenStreamOptions, OpenBlockInfo, OpenStreamState } from './event/open-stream.js';

// models
export type {
  ChatModel,
  ModelOptions,
  ModelRequest,
  ModelRequestInfo,
  ResponseFormat,
  ToolChoice,
  ToolSchema,
} from './model/chat-model.js';
export { isCancellation, isRetryable, ModelError, toErrorInfo } from './model/model-error.js';
export { modelText } from './model/model-text.js';
export type { ModelTextRequest } from './model/model-text.js';
export { RxscopeError } from './error/rxscope-error.js';
export { OptionsError } from './error/options-error.js';
export type { OptionsErrorCode } from './error/options-error.js';
export { checkOptionKeys, closestOption, optionKeys } from './error/check-option-keys.js';
export type { CheckOptionKeysOptions, OptionKeyRecord } from './error/check-option-keys.js';
export type { ModelErrorOptions } from './model/model-error.js';
export { parseRetryAfter, toModelError } from './model/to-model-error.js';
// The OpenAI and LangChain adapters are the entry points @rxscope/core/openai and
// @rxscope/core/langchain, so this entry stays browser-pure and free of the LangChain packages.

// tools
export { defineTool } from './tool/tool.js';
export { externalTool } from './tool/external-tool.js';
export { ToolQuestion } from './tool/tool-question.js';
export type { ToolAnswer, ToolQuestionRequest } from './tool/tool-question.js';
export type { ExternalToolDefinition } from './tool/external-tool.js';
export { jsonSchemaInput } from './tool/json-schema-input.js';
export type { JsonSchemaInput, JsonSchemaObject } from './tool/json-schema-input.js';
export { SchemaError } from './tool/schema-error.js';
export type { SchemaOutput } from './tool/standard-schema.js';
export type {
  Tool,
  ToolContext,
  ToolDefinition,
  ToolModelRequest,
  ToolOutput,
  ToolPermissionDecision,
  ToolProgress,
} from './tool/tool.js';

// middleware
export { ContextToken } from './middleware/context.js';
export type { RuntimeContext, StateSlot } from './middleware/context.js';
export { ConversationEditError } from './middleware/conversation.js';
export type { BlockRef, Conversation, HintOptions } from './middleware/conversation.js';
export type { AgentHandle } from './middleware/agent-handle.js';
export { middlewareKey } from './middleware/middleware.js';
export type {
  ActingInput,
  AgentInput,
  ConversationCut,
  Middleware,
  ModelCallInput,
  Next,
  PermissionCheckInput,
  ReasoningInput,
  ShutdownResume,
} from './middleware/middleware.js';
export { PermissionDecisionError } from './middleware/permission-chain.js';

// agent
export { Agent } from './agent/agent.js';
export type { AgentOptions, ReplyInput, ResumeInput, ResumeReplyInput } from './agent/agent.js';
export type { CheckpointOptions, RecoverReplyInput } from './agent/agent-options.js';
export type { RecoverableReply } from './agent/journal-sync.js';
export { agentAsTool } from './agent/agent-tool.js';
export { OUTPUT_TOOL_NAME, OutputInvalidError } from './agent/structured-output.js';
export type { ReplyOptions } from './agent/structured-output.js';
export type { AgentToolOptions, AgentToolTarget, DefaultAgentToolInput } from './agent/agent-tool.js';
export { AgentError, AgentShutdownError, AgentUsageError, InvalidReplyInputError } from './agent/errors.js';
export { AgentSharedError } from './agent/agent-shared-error.js';
export { InvalidUserIdError, SessionForbiddenError } from './agent/user-identity.js';
export type { AgentShutdownOptions, AgentShutdownResult } from './agent/agent-shutdown.js';
export { ReplyRunningError, UnknownMessageError } from './agent/fork.js';
export type { AgentForkOptions, AgentRewindOptions } from './agent/fork.js';

// permissions
export { Permissions } from './permission/permissions.js';
export type { PermissionDecision } from './permission/engine.js';
export type { PermissionBehavior, PermissionMode, PermissionRule, PermissionState } from './permission/rules.js';

// state and sessions
export { AgentStateError, parseAgentState, STATE_VERSION } from './state/snapshot.js';
export type { AgentStateSnapshot, PendingReply } from './state/snapshot.js';
export { applyJsonPatch, diffJson, JsonPatchError } from './util/json-patch.js';
export type { JsonObject, JsonPatchOperation, JsonValue } from './util/json-patch.js';
export { SharedStateError } from './state/shared-state.js';
export type { SharedState } from './state/shared-state.js';
export { InMemorySessionStore, SessionConflictError, SessionStoreError } from './state/session-store.js';
export type { SessionStore, StoredSession } from './state/session-store.js';
export {
  JOURNAL_VERSION,
  JournalDamagedError,
  JournalVersionError,
  parseJournalEntry,
  readJournalTexts,
  ReplyLeaseError,
} from './state/journal.js';
export type { JournalDamage, JournalEntry, JournalRead, SessionJournal } from './state/journal.js';
export { foldJournal } from './state/journal-fold.js';
export type { FoldedReply } from './state/journal-fold.js';

// utilities
export { newId } from './util/id.js';

// transport ----------------------------------------------------------------------------------
export {
  AgentStreamError,
  encodeAgentEvent,
  encodeServerSentComment,
  encodeServerSentEvent,
  fromAgentEventStream,
  REPLAY_GAP,
  toEventStreamResponse,
  toServerSentEvents,
} from './transport/index.js';
export type {
  AgentEventStreamOptions,
  AgentStreamErrorKind,
  EventStreamResponseOptions,
  ServerSentEvent,
  ServerSentEventsOptions,
} from './transport/index.js';
// end of transport ----------------------------------------------------------------------------

// stream operators
export { pendingConfirmations, throwOnErrorEnd, toMsg, toText } from './operators/index.js';
export type { ThrowOnErrorEndOptions, ToTextOptions } from './operators/index.js';
/** @deprecated renamed; see docs/public-api.md ("One vocabulary"). Removed in the next minor version. */
export { textOf, toMessage } from './operators/index.js';
/** @deprecated renamed `ToTextOptions`. Removed in the next minor version. */
export type { TextOfOptions } from './operators/index.js';
