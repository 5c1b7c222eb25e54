/**
 * Type tests of the event union (docs/events.md): discrimination on `type`, the fields the contract
 * fixes, the guards usable in `filter`, `createEvent`, and model events without the base fields.
 */
import { filter, map, type Observable } from 'rxjs';
import {
  type AgentEvent,
  type AgentEventOf,
  type AgentEventType,
  type BlockDeltaEvent,
  type BlockStartEvent,
  type ChatModel,
  type ConfirmResult,
  type ErrorInfo,
  type ExternalResult,
  type ModelEvent,
  type ModelEventType,
  type PendingToolCall,
  type ReplyFinishReason,
  type ToolResultContent,
  type ToolResultStatus,
  type Usage,
  createEvent,
  isBlockDelta,
  isBlockEnd,
  isBlockStart,
  isEvent,
} from '../index.js';
import { declared, exact, type Equal, type Expect } from './helpers.test-d.js';

// ── The union: every type of the contract, nothing else ──────────────────────────────────────
type _types = Expect<
  Equal<
    AgentEventType,
    | 'REPLY_START'
    | 'REPLY_END'
    | 'MODEL_CALL_START'
    | 'MODEL_CALL_END'
    | 'TEXT_BLOCK_START'
    | 'TEXT_BLOCK_DELTA'
    | 'TEXT_BLOCK_END'
    | 'THINKING_BLOCK_START'
    | 'THINKING_BLOCK_DELTA'
    | 'THINKING_BLOCK_END'
    | 'TOOL_CALL_START'
    | 'TOOL_CALL_DELTA'
    | 'TOOL_CALL_END'
    | 'TOOL_RESULT_START'
    | 'TOOL_RESULT_DELTA'
    | 'TOOL_PROGRESS'
    | 'TOOL_RESULT_END'
    | 'HINT_BLOCK'
    | 'DATA_BLOCK_START'
    | 'DATA_BLOCK_DELTA'
    | 'DATA_BLOCK_END'
    | 'REQUIRE_USER_CONFIRM'
    | 'USER_CONFIRM_RESULT'
    | 'REQUIRE_EXTERNAL_EXECUTION'
    | 'EXTERNAL_EXECUTION_RESULT'
    | 'CUSTOM'
    | 'STATE_SNAPSHOT'
    | 'STATE_DELTA'
  >
>;
type _discriminant = Expect<Equal<AgentEvent['type'], AgentEventType>>;

// Base fields on every member.
type _base = Expect<
  Equal<
    Pick<AgentEvent, 'id' | 'replyId' | 'createdAt' | 'source' | 'metadata'>,
    {
      readonly id: string;
      readonly replyId: string;
      readonly createdAt: number;
      readonly source: string;
      readonly metadata?: Readonly<Record<string, unknown>>;
    }
  >
>;

// Fields the contract fixes.
type _finishReason = Expect<
  Equal<
    ReplyFinishReason,
    | 'completed'
    | 'interrupted'
    | 'max_iters'
    | 'awaiting_confirmation'
    | 'awaiting_external_execution'
    | 'stopped'
    | 'shutdown'
    | 'error'
  >
>;
type _replyEnd = Expect<Equal<AgentEventOf<'REPLY_END'>['finishReason'], ReplyFinishReason>>;
type _replyEndError = Expect<Equal<AgentEventOf<'REPLY_END'>['error'], ErrorInfo | undefined>>;
type _modelStart = Expect<Equal<AgentEventOf<'MODEL_CALL_START'>['model'], string>>;
type _modelEndUsage = Expect<Equal<AgentEventOf<'MODEL_CALL_END'>['usage'], Usage>>;
type _usage = Expect<
  Equal<
    Usage,
    {
      readonly inputTokens: number;
      readonly outputTokens: number;
      readonly cacheReadTokens?: number;
      readonly reasoningTokens?: number;
    }
  >
>;
type _status = Expect<Equal<ToolResultStatus, 'success' | 'error' | 'denied' | 'interrupted'>>;
type _resultEnd = Expect<
  Equal<AgentEventOf<'TOOL_RESULT_END'>['status'], 'success' | 'error' | 'denied' | 'interrupted'>
>;
type _resultOutput = Expect<Equal<AgentEventOf<'TOOL_RESULT_END'>['output'], readonly ToolResultContent[]>>;
type _callStart = Expect<
  Equal<
    Pick<AgentEventOf<'TOOL_CALL_START'>, 'blockId' | 'toolCallId' | 'name'>,
    { readonly blockId: string; readonly toolCallId: string; readonly name: string }
  >
>;
type _pending = Expect<Equal<AgentEventOf<'REQUIRE_USER_CONFIRM'>['toolCalls'], readonly PendingToolCall[]>>;
type _pendingExt = Expect<Equal<AgentEventOf<'REQUIRE_EXTERNAL_EXECUTION'>['toolCalls'], readonly PendingToolCall[]>>;
type _pendingShape = Expect<
  Equal<
    Pick<PendingToolCall, 'id' | 'name' | 'input'>,
    { readonly id: string; readonly name: string; readonly input: unknown }
  >
>;
type _confirm = Expect<Equal<AgentEventOf<'USER_CONFIRM_RESULT'>['results'], readonly ConfirmResult[]>>;
type _confirmShape = Expect<
  Equal<
    ConfirmResult,
    {
      readonly toolCallId: string;
      readonly confirmed: boolean;
      readonly reason?: string;
      readonly input?: unknown;
      readonly alwaysAllow?: boolean;
      readonly cancelled?: boolean;
    }
  >
>;
type _external = Expect<Equal<AgentEventOf<'EXTERNAL_EXECUTION_RESULT'>['results'], readonly ExternalResult[]>>;
type _externalShape = Expect<
  Equal<Pick<ExternalResult, 'toolCallId' | 'isError'>, { readonly toolCallId: string; readonly isError?: boolean }>
>;
type _custom = Expect<
  Equal<Pick<AgentEventOf<'CUSTOM'>, 'name' | 'value'>, { readonly name: string; readonly value: unknown }>
>;
// Every block event carries a blockId, every delta a string delta.
type _blockIds = Expect<Equal<(BlockStartEvent | BlockDeltaEvent | AgentEventOf<'HINT_BLOCK'>)['blockId'], string>>;
type _deltas = Expect<Equal<BlockDeltaEvent['delta'], string>>;

// ── Narrowing on `type` ──────────────────────────────────────────────────────────────────────────
export function narrowing(e: AgentEvent): void {
  // @ts-expect-error -- not every event has a delta
  void e.delta;
  if (e.type === 'TEXT_BLOCK_DELTA') {
    exact<string>()(e.delta);
    exact<string>()(e.blockId);
  }
  if (e.type === 'TOOL_RESULT_END') {
    exact<'success' | 'error' | 'denied' | 'interrupted'>()(e.status);
    exact<string>()(e.toolCallId);
    // @ts-expect-error -- the status is one of the four literals
    if (e.status === 'ok') return;
  }
  switch (e.type) {
    case 'REPLY_END':
      exact<ReplyFinishReason>()(e.finishReason);
      break;
    case 'MODEL_CALL_END':
      exact<number>()(e.usage.inputTokens);
      exact<number | undefined>()(e.usage.cacheReadTokens);
      break;
    case 'CUSTOM':
      exact<unknown>()(e.value);
      // @ts-expect-error -- a CUSTOM event has no blockId
      void e.blockId;
      break;
    default:
      break;
  }
}

// The switch over `type` can be exhaustive.
export function describeEvent(e: AgentEvent): string {
  switch (e.type) {
    case 'REPLY_START':
    case 'REPLY_END':
    case 'MODEL_CALL_START':
    case 'MODEL_CALL_END':
    case 'TEXT_BLOCK_START':
    case 'TEXT_BLOCK_DELTA':
    case 'TEXT_BLOCK_END':
    case 'THINKING_BLOCK_START':
    case 'THINKING_BLOCK_DELTA':
    case 'THINKING_BLOCK_END':
    case 'TOOL_CALL_START':
    case 'TOOL_CALL_DELTA':
    case 'TOOL_CALL_END':
    case 'TOOL_RESULT_START':
    case 'TOOL_RESULT_DELTA':
    case 'TOOL_PROGRESS':
    case 'TOOL_RESULT_END':
    case 'HINT_BLOCK':
    case 'DATA_BLOCK_START':
    case 'DATA_BLOCK_DELTA':
    case 'DATA_BLOCK_END':
    case 'REQUIRE_USER_CONFIRM':
    case 'USER_CONFIRM_RESULT':
    case 'REQUIRE_EXTERNAL_EXECUTION':
    case 'EXTERNAL_EXECUTION_RESULT':
    case 'CUSTOM':
    case 'STATE_SNAPSHOT':
    case 'STATE_DELTA':
      return e.type;
    default: {
      const unreachable: never = e;
      return unreachable;
    }
  }
}

// Events are immutable.
export function immutable(e: AgentEventOf<'TEXT_BLOCK_DELTA'>): void {
  // @ts-expect-error -- event fields are readonly
  e.delta = '';
}

// ── Guards in `filter` ───────────────────────────────────────────────────────────────────────────
const events$ = declared<Observable<AgentEvent>>();

export const deltas$ = events$.pipe(
  filter(isEvent('TEXT_BLOCK_DELTA', 'THINKING_BLOCK_DELTA')),
  map((e) => {
    exact<'TEXT_BLOCK_DELTA' | 'THINKING_BLOCK_DELTA'>()(e.type);
    return e.delta;
  }),
);
type _deltas$ = Expect<Equal<typeof deltas$, Observable<string>>>;

export const ends$ = events$.pipe(filter(isEvent('REPLY_END')));
type _ends$ = Expect<Equal<typeof ends$, Observable<AgentEventOf<'REPLY_END'>>>>;

export const guardType = isEvent('TOOL_CALL_START', 'TOOL_RESULT_END');
type _guard = Expect<
  Equal<typeof guardType, (event: AgentEvent) => event is AgentEventOf<'TOOL_CALL_START' | 'TOOL_RESULT_END'>>
>;

export const mixed$ = events$.pipe(
  filter(isEvent('TOOL_CALL_START', 'TOOL_RESULT_END')),
  map((e) => (e.type === 'TOOL_CALL_START' ? e.name : e.status)),
);
type _mixed$ = Expect<Equal<typeof mixed$, Observable<string>>>;

// @ts-expect-error -- unknown event type
isEvent('TEXT_DELTA');

export const starts$ = events$.pipe(filter(isBlockStart));
type _starts$ = Expect<Equal<typeof starts$, Observable<BlockStartEvent>>>;
export const blockDeltas$ = events$.pipe(
  filter(isBlockDelta),
  map((e) => e.delta),
);
type _blockDeltas$ = Expect<Equal<typeof blockDeltas$, Observable<string>>>;
export const blockEnds$ = events$.pipe(
  filter(isBlockEnd),
  map((e) => e.blockId),
);
type _blockEnds$ = Expect<Equal<typeof blockEnds$, Observable<string>>>;

// ── createEvent: the type's own fields are required and checked ──────────────────────────────
const origin = { replyId: 'reply_1', source: 'assistant' };
const _madeEvent = createEvent(
  'TOOL_RESULT_END',
  { blockId: 'b', toolCallId: 'c', status: 'success', output: [] },
  origin,
);
type _made = Expect<Equal<typeof _madeEvent, AgentEventOf<'TOOL_RESULT_END'>>>;
export const withMetadata = createEvent('CUSTOM', { name: 'n', value: 1 }, origin, { traceId: 't' });

// @ts-expect-error -- missing `output`
createEvent('TOOL_RESULT_END', { blockId: 'b', toolCallId: 'c', status: 'success' }, origin);
// @ts-expect-error -- status must be one of the four literals
createEvent('TOOL_RESULT_END', { blockId: 'b', toolCallId: 'c', status: 'ok', output: [] }, origin);
// @ts-expect-error -- missing `delta`
createEvent('TEXT_BLOCK_DELTA', { blockId: 'b' }, origin);
// @ts-expect-error -- delta is a string
createEvent('TEXT_BLOCK_DELTA', { blockId: 'b', delta: 1 }, origin);
// @ts-expect-error -- missing `finishReason`
createEvent('REPLY_END', {}, origin);
// @ts-expect-error -- not a finish reason
createEvent('REPLY_END', { finishReason: 'done' }, origin);
// @ts-expect-error -- the origin is required (replyId and source)
createEvent('REPLY_START', {}, { replyId: 'r' });
// @ts-expect-error -- unknown event type
createEvent('PROGRESS', {}, origin);

// ── Model events: the content events without the base fields ────────────────────────────────────
type _modelTypes = Expect<
  Equal<
    ModelEventType,
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
    | 'MODEL_CALL_END'
  >
>;
type _modelDiscriminant = Expect<Equal<ModelEvent['type'], ModelEventType>>;
type _noBaseFields = Expect<
  Equal<Extract<keyof ModelEvent, 'id' | 'replyId' | 'createdAt' | 'source' | 'metadata'>, never>
>;

export const chunk: ModelEvent = { type: 'TEXT_BLOCK_DELTA', blockId: 'b1', delta: 'Hel' };
export const end: ModelEvent = {
  type: 'MODEL_CALL_END',
  model: 'm',
  finishReason: 'stop',
  usage: { inputTokens: 1, outputTokens: 1 },
};

export function modelEvents(m: ModelEvent, a: AgentEvent): void {
  // @ts-expect-error -- a model event has no id (the agent stamps it)
  void m.id;
  // @ts-expect-error -- a model event is not an agent event
  const _asAgent: AgentEvent = m;
  // @ts-expect-error -- nor is every agent event a model event
  const _asModel: ModelEvent = a;
  if (m.type === 'TOOL_CALL_START') exact<string>()(m.toolCallId);
}
// @ts-expect-error -- the loop, not the model, emits REPLY_START
export const notModel: ModelEvent = { type: 'REPLY_START' };
// @ts-expect-error -- the agent emits MODEL_CALL_START, not the model
export const notModelStart: ModelEvent = { type: 'MODEL_CALL_START', model: 'm' };

type _stream = Expect<Equal<ReturnType<ChatModel['stream']>, Observable<ModelEvent>>>;
