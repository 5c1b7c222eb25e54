import type { ToolResultContent, ToolResultStatus } from '../message/blocks.js';
import type { ModelRequestInfo } from './model-request.js';
import type { ToolQuestionRequest } from './tool-question-request.js';
import type { JsonObject, JsonPatchOperation } from '../util/json-patch.js';

/** Token usage of one model call (or a sum of calls). */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens?: number;
  readonly reasoningTokens?: number;
}

/**
 * Why a reply ended. `'shutdown'`: the agent was shut down (`agent.shutdown()`, e.g. on SIGTERM)
 * while the reply ran; the reply is saved, not finished, and continues with a `RESUME_REPLY`
 * input, in this process or another one.
 */
export type ReplyFinishReason =
  | 'completed'
  | 'interrupted'
  | 'max_iters'
  | 'awaiting_confirmation'
  | 'awaiting_external_execution'
  | 'stopped'
  | 'shutdown'
  | 'error';

/**
 * Why a middleware ended a reply on purpose (`finishReason: 'stopped'`): a limit, a budget, a
 * guard. Not an error: `agent.call()` resolves.
 */
export interface StopReason {
  /** Machine-readable, e.g. `'model_call_limit'`. */
  readonly code: string;
  /** For people (and logs). */
  readonly message: string;
}

/** JSON-serialisable description of a failure, carried by `REPLY_END` and `MODEL_CALL_END`. */
export interface ErrorInfo {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly status?: number;
  readonly retryable?: boolean;
  /** How long the server asked to wait before trying again (a rate limit's `Retry-After`), in ms. */
  readonly retryAfterMs?: number;
}

/** A tool call waiting for a person's confirmation or for an external executor. */
export interface PendingToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  /** Why the call needs confirmation (a rule, the mode, the tool's own check). */
  readonly reason?: string;
  /**
   * Set when the running tool asked a person something (`ToolQuestion`, e.g. an MCP server's
   * elicitation): answer with `input` matching `question.schema` (validated at resume),
   * `confirmed: false` to decline, or `cancelled: true`; the tool then runs again with the answer.
   */
  readonly question?: ToolQuestionRequest;
}

/** A person's answer to one call of `REQUIRE_USER_CONFIRM`. */
export interface ConfirmResult {
  readonly toolCallId: string;
  readonly confirmed: boolean;
  /** Shown to the model when the call is rejected. */
  readonly reason?: string;
  /** Replacement arguments (validated again before the call runs). */
  readonly input?: unknown;
  /** Confirm and add a rule that allows this tool from now on. */
  readonly alwaysAllow?: boolean;
  /** For a call's `question`: dismissed without a decision (sent on as a cancel rather than a decline). */
  readonly cancelled?: boolean;
}

/** The output an external executor produced for one call of `REQUIRE_EXTERNAL_EXECUTION`. */
export interface ExternalResult {
  readonly toolCallId: string;
  readonly output: string | readonly ToolResultContent[];
  readonly isError?: boolean;
}

/**
 * Fields of each event type beyond the common {@link EventBase}. The single source of the
 * {@link AgentEvent} union: extend here, and the union, constructors and guards follow.
 */
export interface EventFields {
  REPLY_START: { readonly sessionId?: string };
  REPLY_END: {
    readonly finishReason: ReplyFinishReason;
    readonly error?: ErrorInfo;
    /** Set when `finishReason` is `'stopped'`, and for `'shutdown'` (`code: 'shutdown'`, the reason given). */
    readonly stopReason?: StopReason;
    readonly usage?: Usage;
    /** The parsed structured output, when the reply was asked for one (`reply(input, {output})`). */
    readonly output?: unknown;
  };
  MODEL_CALL_START: {
    readonly model: string;
    readonly iteration?: number;
    /** The model's provider (`ChatModel.provider`). */
    readonly provider?: string;
    /** What the call sends: server, streaming, the request options in effect (when the model describes it). */
    readonly request?: ModelRequestInfo;
  };
  MODEL_CALL_END: {
    readonly model: string;
    readonly usage: Usage;
    readonly finishReason: string;
    readonly responseModel?: string;
    /** The id the server gave its response (`chatcmpl-...`), when it gave one. */
    readonly responseId?: string;
    readonly error?: ErrorInfo;
  };
  TEXT_BLOCK_START: { readonly blockId: string };
  TEXT_BLOCK_DELTA: { readonly blockId: string; readonly delta: string };
  TEXT_BLOCK_END: { readonly blockId: string };
  THINKING_BLOCK_START: { readonly blockId: string };
  THINKING_BLOCK_DELTA: { readonly blockId: string; readonly delta: string };
  THINKING_BLOCK_END: { readonly blockId: string };
  TOOL_CALL_START: { readonly blockId: string; readonly toolCallId: string; readonly name: string };
  /** A piece of the call's JSON arguments; `toolCallId` is the one of its `TOOL_CALL_START`. */
  TOOL_CALL_DELTA: { readonly blockId: string; readonly toolCallId: string; readonly delta: string };
  /** The call's arguments are complete; `toolCallId` is the one of its `TOOL_CALL_START`. */
  TOOL_CALL_END: { readonly blockId: string; readonly toolCallId: string };
  TOOL_RESULT_START: { readonly blockId: string; readonly toolCallId: string; readonly name: string };
  /** A piece of the tool's output as it streams (the values together form `TOOL_RESULT_END.output`). */
  TOOL_RESULT_DELTA: { readonly blockId: string; readonly delta: string };
  /**
   * A running tool's progress report (`toolCtx.emit(...)`): shown live, never part of the result.
   * Sent inside the tool's result block (between its `TOOL_RESULT_START` and `TOOL_RESULT_END`).
   */
  TOOL_PROGRESS: {
    readonly blockId: string;
    readonly toolCallId: string;
    readonly message: string;
    /** Work done so far, in units of `total` (when the tool reports numbers). */
    readonly progress?: number;
    readonly total?: number;
  };
  TOOL_RESULT_END: {
    readonly blockId: string;
    readonly toolCallId: string;
    readonly status: ToolResultStatus;
    /** The complete, authoritative output, as the model sees it. */
    readonly output: readonly ToolResultContent[];
    /**
     * The value the tool returned, as it returned it, when it produced one value that is not text
     * or content blocks (an object, array, number, boolean or null); `output` holds its JSON.
     */
    readonly value?: unknown;
    /**
     * The run stopped to ask a person something (status `'interrupted'`): this is not the call's
     * result; the call waits in `REQUIRE_USER_CONFIRM` and gets its result when the reply resumes.
     */
    readonly awaitingAnswer?: true;
  };
  HINT_BLOCK: {
    readonly blockId: string;
    readonly text: string;
    /** The hint's id (`ctx.conversation.addHint`), when it was given one. */
    readonly hintId?: string;
    /** Who the hint is from: `'user'` for a message sent with `agent.send()`. */
    readonly hintSource?: string;
  };
  DATA_BLOCK_START: { readonly blockId: string; readonly mediaType: string; readonly url?: string };
  DATA_BLOCK_DELTA: { readonly blockId: string; readonly delta: string };
  DATA_BLOCK_END: { readonly blockId: string };
  REQUIRE_USER_CONFIRM: { readonly toolCalls: readonly PendingToolCall[] };
  USER_CONFIRM_RESULT: { readonly results: readonly ConfirmResult[] };
  REQUIRE_EXTERNAL_EXECUTION: { readonly toolCalls: readonly PendingToolCall[] };
  EXTERNAL_EXECUTION_RESULT: { readonly results: readonly ExternalResult[] };
  CUSTOM: { readonly name: string; readonly value: unknown };
  /**
   * The whole shared state of the session (`ctx.sharedState`), as it is after a change. The first
   * state event of a reply is always a snapshot; a consumer replaces its copy with `snapshot`.
   */
  STATE_SNAPSHOT: { readonly snapshot: JsonObject };
  /**
   * A change of the shared state as RFC 6902 JSON Patch operations, to apply to the state of the
   * previous `STATE_SNAPSHOT`/`STATE_DELTA` of the reply. A consumer whose patch does not apply
   * drops its copy and waits for the next `STATE_SNAPSHOT` (docs/events.md, "Shared state").
   */
  STATE_DELTA: { readonly delta: readonly JsonPatchOperation[] };
}

/** Every event type name. */
export type AgentEventType = keyof EventFields;

/** Fields every event carries. */
export interface EventBase {
  readonly id: string;
  readonly replyId: string;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  /** Name of the agent that emitted the event (subagents have their own). */
  readonly source: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

type EventShape<K extends AgentEventType> = EventBase & { readonly type: K } & EventFields[K];

/**
 * Everything a reply emits: a discriminated union on `type`.
 *
 * @example
 * ```ts
 * agent.reply('hi').subscribe((e: AgentEvent) => {
 *   if (e.type === 'TEXT_BLOCK_DELTA') process.stdout.write(e.delta);
 * });
 * ```
 */
export type AgentEvent = { [K in AgentEventType]: EventShape<K> }[AgentEventType];

/**
 * The event (or events) of the given type(s).
 *
 * @example
 * ```ts
 * const onDelta = (e: AgentEventOf<'TEXT_BLOCK_DELTA'>) => process.stdout.write(e.delta);
 * ```
 */
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { readonly type: T }>;

/** Event types a {@link ChatModel} emits (the agent stamps them into full events). */
export type ModelEventType =
  | 'TEXT_BLOCK_START'
  | 'TEXT_BLOCK_DELTA'
  | 'TEXT_BLOCK_END'
  | 'THINKING_BLOCK_START'
  | 'THINKING_BLOCK_DELTA'
  | 'THINKING_BLOCK_END'
  | 'TOOL_CALL_START'
  | 'TOOL_CALL_DELTA'
  | 'TOOL_CALL_END'
  | 'DATA_BLOCK_START'
  | 'DATA_BLOCK_DELTA'
  | 'DATA_BLOCK_END'
  | 'MODEL_CALL_END';

/**
 * What a {@link ChatModel} emits: the content events of a model call without the fields the
 * agent adds (`id`, `replyId`, `createdAt`, `source`), ending with one `MODEL_CALL_END`.
 *
 * @example
 * ```ts
 * const chunk: ModelEvent = { type: 'TEXT_BLOCK_DELTA', blockId: 'b1', delta: 'Hel' };
 * ```
 */
export type ModelEvent = { [K in ModelEventType]: { readonly type: K } & ModelEventFields[K] }[ModelEventType];

/**
 * The fields of a model event: those of the agent event, except that `TOOL_CALL_DELTA` and
 * `TOOL_CALL_END` may leave out `toolCallId` (the agent fills it in from the call's
 * `TOOL_CALL_START`, so a model only names the block).
 */
type ModelEventFields = {
  [K in ModelEventType]: K extends 'TOOL_CALL_DELTA' | 'TOOL_CALL_END'
    ? Omit<EventFields[K], 'toolCallId'> & { readonly toolCallId?: string }
    : EventFields[K];
};

// Aliases for the most used events.
/** @see AgentEvent */ export type ReplyStartEvent = AgentEventOf<'REPLY_START'>;
/** @see AgentEvent */ export type ReplyEndEvent = AgentEventOf<'REPLY_END'>;
/** @see AgentEvent */ export type ModelCallStartEvent = AgentEventOf<'MODEL_CALL_START'>;
/** @see AgentEvent */ export type ModelCallEndEvent = AgentEventOf<'MODEL_CALL_END'>;
/** @see AgentEvent */ export type ToolCallStartEvent = AgentEventOf<'TOOL_CALL_START'>;
/** @see AgentEvent */ export type ToolProgressEvent = AgentEventOf<'TOOL_PROGRESS'>;
/** @see AgentEvent */ export type ToolResultEndEvent = AgentEventOf<'TOOL_RESULT_END'>;
/** @see AgentEvent */ export type RequireUserConfirmEvent = AgentEventOf<'REQUIRE_USER_CONFIRM'>;
/** @see AgentEvent */ export type RequireExternalExecutionEvent = AgentEventOf<'REQUIRE_EXTERNAL_EXECUTION'>;
/** @see AgentEvent */ export type UserConfirmResultEvent = AgentEventOf<'USER_CONFIRM_RESULT'>;
/** @see AgentEvent */ export type ExternalExecutionResultEvent = AgentEventOf<'EXTERNAL_EXECUTION_RESULT'>;
/** @see AgentEvent */ export type CustomEvent = AgentEventOf<'CUSTOM'>;
/** @see AgentEvent */ export type StateSnapshotEvent = AgentEventOf<'STATE_SNAPSHOT'>;
/** @see AgentEvent */ export type StateDeltaEvent = AgentEventOf<'STATE_DELTA'>;
