// @rxscope/middleware-builtin — public API: the cross-cutting layers an agent's middlewares are
// made of (observability, limits, prompts, guards, resilience, data protection, usage, audit).
// Explicit named exports only; one middleware per folder. Features have their own entry points:
// /knowledge, /memory, /recording, /tts, /mcp; Node-only helpers are in /node, Redis-backed
// parts (ioredis) in /redis.

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
export { CostLimitMiddleware } from './cost-limit/index.js';
export type { CostLimitOptions, CostLimitStatus } from './cost-limit/index.js';
export { InMemoryCostStore } from './cost-limit/cost-store.js';
export type { CostPeriod, CostStore } from './cost-limit/cost-store.js';
export { MiddlewareOptionError } from './internal/option-error.js';
export { GuardrailCheckError, GuardrailMiddleware } from './guardrail/index.js';
export type {
  GuardrailCheck,
  GuardrailCheckContext,
  GuardrailChecks,
  GuardrailOptions,
  GuardrailStage,
  GuardrailTripped,
  GuardrailVerdict,
} from './guardrail/index.js';
export { denylist, maxLength } from './guardrail/text-checks.js';
export { moderation } from './guardrail/moderation.js';
export type { ModerationOptions } from './guardrail/moderation.js';
export { PROMPT_INJECTION_PROMPT, promptInjection } from './guardrail/prompt-injection.js';
export type { PromptInjectionOptions } from './guardrail/prompt-injection.js';
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

// --- usage, cost and audit ---
export { UsageMiddleware } from './usage/index.js';
export type { ModelCallUsage, ReplyUsage, SessionUsage, UsageOptions, UsageTotals } from './usage/index.js';
export type { ModelPrice, PriceTable } from './usage/prices.js';
export { AuditLogMiddleware } from './audit-log/index.js';
export type { AuditLogOptions } from './audit-log/index.js';
export { DEFAULT_REDACTED_KEYS, memoryAuditSink } from './audit-log/records.js';
export type { AuditRecord, AuditRecordBase, AuditSink } from './audit-log/records.js';

// --- deprecated aliases: features that moved to their own entry points ---
// Import these from '@rxscope/middleware-builtin/knowledge', '/memory', '/recording' and '/tts';
// the root aliases are removed in the next minor version.
export {
  citationOf,
  formatKnowledge,
  InMemoryKnowledgeBase,
  RAGMiddleware,
  reciprocalRankFusion,
  searchKnowledgeBases,
  VectorStoreKnowledgeBase,
} from './deprecated/knowledge.js';
export type {
  EmbeddingsLike,
  FusedHit,
  InMemoryKnowledgeBaseOptions,
  KnowledgeAddResult,
  KnowledgeBase,
  KnowledgeDocument,
  KnowledgeFilter,
  KnowledgeHit,
  KnowledgeSearchOptions,
  KnowledgeSearchResult,
  RAGOptions,
  RagRetrievedValue,
  ReciprocalRankFusionOptions,
  SearchKnowledgeBasesOptions,
  VectorStoreKnowledgeBaseOptions,
  VectorStoreLike,
} from './deprecated/knowledge.js';
export {
  AgenticMemoryMiddleware,
  formatMemoryFile,
  KnowledgeMemoryBackend,
  parseMemoryFile,
  StaticMemoryMiddleware,
} from './deprecated/memory.js';
export type {
  AgenticMemoryOptions,
  KnowledgeMemoryBackendOptions,
  Memory,
  MemoryBackend,
  MemoryExchange,
  MemoryExtractor,
  MemoryHeader,
  StaticMemoryOptions,
} from './deprecated/memory.js';
export {
  CASSETTE_VERSION,
  CassetteMismatchError,
  RecordingMiddleware,
  ReplayChatModel,
  stableEvents,
} from './deprecated/recording.js';
export type {
  Cassette,
  RecordedModelCall,
  RecordedModelRequest,
  RecordedReply,
  RecordingOptions,
  ReplayChatModelOptions,
} from './deprecated/recording.js';
export { OpenAITextToSpeech, TTSMiddleware } from './deprecated/tts.js';
export type { OpenAITextToSpeechOptions, SpeechOptions, TextToSpeech, TTSOptions } from './deprecated/tts.js';
