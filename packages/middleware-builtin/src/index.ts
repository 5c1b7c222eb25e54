// @rxscope/middleware-builtin — public API. Explicit named exports only; one middleware per folder.

// --- observability ---
export { TracingMiddleware } from './tracing/index.js';
export type { TracingOptions } from './tracing/index.js';

// --- budgets, limits, prompts, guards ---
export { ReplyBudgetMiddleware } from './reply-budget/index.js';
export type { ReplyBudgetOptions, ReplyBudgetStatus } from './reply-budget/index.js';
export { ModelCallLimitMiddleware } from './model-call-limit/index.js';
export type { ModelCallLimitOptions, ModelCallLimitStatus } from './model-call-limit/index.js';
export { ToolCallLimitMiddleware } from './tool-call-limit/index.js';
export type { ToolCallLimitOptions, ToolCallLimitStatus, ToolLimits } from './tool-call-limit/index.js';
export { LimitExceededError } from './limit-exceeded-error.js';
export type { LimitExceededErrorOptions, LimitScope } from './limit-exceeded-error.js';
export { DynamicPromptMiddleware, formatCurrentTime } from './dynamic-prompt/index.js';
export type {
  CurrentTimeOptions,
  DynamicPromptOptions,
  PromptSection,
  PromptSectionValue,
} from './dynamic-prompt/index.js';
export { clampArgument, confinePath, ToolGuardMiddleware } from './tool-guard/index.js';
export type { ToolCallInfo, ToolGuardOptions, ToolGuardRule, ToolInputRewrite } from './tool-guard/index.js';
export { resilient } from './resilient/index.js';
export type { MiddlewareFailure, MiddlewareHook, ResilientOptions } from './resilient/index.js';

// --- resilience and data protection ---
export { RetryMiddleware } from './retry/index.js';
export type { RetryEventValue, RetryOptions } from './retry/index.js';
export { FallbackMiddleware } from './fallback/index.js';
export type { FallbackEventValue, FallbackOptions } from './fallback/index.js';
export { RateLimitMiddleware } from './rate-limit/index.js';
export type { RateLimitEventValue, RateLimitOptions } from './rate-limit/index.js';
export { ReplyTimeoutError, TimeoutMiddleware, ToolTimeoutError } from './timeout/index.js';
export type { TimeoutOptions } from './timeout/index.js';
export { detectPii, PII_TYPES, PiiRedactionMiddleware } from './pii-redaction/index.js';
export type { PiiMatch, PiiOutputOptions, PiiRedactionOptions, PiiStrategy, PiiType } from './pii-redaction/index.js';

// --- knowledge (RAG) ---
export { InMemoryKnowledgeBase } from './knowledge/in-memory-knowledge-base.js';
export type { InMemoryKnowledgeBaseOptions } from './knowledge/in-memory-knowledge-base.js';
export type {
  EmbeddingsLike,
  KnowledgeAddResult,
  KnowledgeBase,
  KnowledgeDocument,
  KnowledgeFilter,
  KnowledgeHit,
  KnowledgeSearchOptions,
} from './knowledge/knowledge-base.js';
export { VectorStoreKnowledgeBase } from './knowledge/vector-store-knowledge-base.js';
export type { VectorStoreKnowledgeBaseOptions, VectorStoreLike } from './knowledge/vector-store-knowledge-base.js';
export { reciprocalRankFusion } from './knowledge/reciprocal-rank-fusion.js';
export type { FusedHit, ReciprocalRankFusionOptions } from './knowledge/reciprocal-rank-fusion.js';
export { citationOf, formatKnowledge, searchKnowledgeBases } from './knowledge/search-knowledge-bases.js';
export type { KnowledgeSearchResult, SearchKnowledgeBasesOptions } from './knowledge/search-knowledge-bases.js';
export { RAGMiddleware } from './rag/index.js';
export type { RAGOptions, RagRetrievedValue } from './rag/index.js';

// --- usage, cost and audit ---
export { UsageMiddleware } from './usage/index.js';
export type { ModelCallUsage, ReplyUsage, SessionUsage, UsageOptions, UsageTotals } from './usage/index.js';
export type { ModelPrice, PriceTable } from './usage/prices.js';
export { AuditLogMiddleware } from './audit-log/index.js';
export type { AuditLogOptions } from './audit-log/index.js';
export { DEFAULT_REDACTED_KEYS, memoryAuditSink } from './audit-log/records.js';
export type { AuditRecord, AuditRecordBase, AuditSink } from './audit-log/records.js';

// --- recording and replay ---
export { RecordingMiddleware } from './recording/index.js';
export type { RecordingOptions } from './recording/index.js';
export { CassetteMismatchError, ReplayChatModel } from './recording/replay-chat-model.js';
export type { ReplayChatModelOptions } from './recording/replay-chat-model.js';
export { CASSETTE_VERSION, stableEvents } from './recording/cassette.js';
export type { Cassette, RecordedModelCall, RecordedModelRequest, RecordedReply } from './recording/cassette.js';

// --- speech ---
export { TTSMiddleware } from './tts/index.js';
export type { TTSOptions } from './tts/index.js';
export { OpenAITextToSpeech } from './tts/openai-text-to-speech.js';
export type { OpenAITextToSpeechOptions } from './tts/openai-text-to-speech.js';
export type { SpeechOptions, TextToSpeech } from './tts/text-to-speech.js';

// --- long-term memory ---
export { AgenticMemoryMiddleware } from './memory/index.js';
export type { AgenticMemoryOptions } from './memory/index.js';
export { StaticMemoryMiddleware } from './memory/static-memory.js';
export type { MemoryExchange, MemoryExtractor, StaticMemoryOptions } from './memory/static-memory.js';
export { KnowledgeMemoryBackend } from './memory/knowledge-memory-backend.js';
export type { KnowledgeMemoryBackendOptions } from './memory/knowledge-memory-backend.js';
export { formatMemoryFile, parseMemoryFile } from './memory/memory-backend.js';
export type { Memory, MemoryBackend, MemoryHeader } from './memory/memory-backend.js';
