import type { AgentEvent, ChatModel, ErrorInfo, ModelEvent, ModelRequest, ToolChoice } from '@rxscope/core';

/** What a model says a call sends (the return of `ChatModel.describeRequest`). */
export type ModelRequestInfo = ReturnType<NonNullable<ChatModel['describeRequest']>>;

/** Version of the cassette format this package writes and reads. */
export const CASSETTE_VERSION = 1;

/**
 * A model request as recorded: what the model was asked, without ids, timestamps or signals,
 * so that the same conversation gives the same recorded request.
 *
 * @example
 * ```ts
 * const req: RecordedModelRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], toolChoice: 'auto', options: {} };
 * ```
 */
export interface RecordedModelRequest {
  readonly messages: readonly { readonly role: string; readonly content: readonly unknown[] }[];
  /** Names of the tools offered. */
  readonly tools: readonly string[];
  readonly toolChoice: ToolChoice;
  readonly options: Readonly<Record<string, unknown>>;
}

/**
 * One call of the model: the request, and what the model answered (its events) or how it failed.
 *
 * @example
 * ```ts
 * const call: RecordedModelCall = { model: 'gpt-4o-mini', request, events: [{ type: 'MODEL_CALL_END', model: 'gpt-4o-mini', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 1 } }] };
 * ```
 */
export interface RecordedModelCall {
  readonly model: string;
  readonly provider: string;
  /** What the model said it sends (`ChatModel.describeRequest`), replayed in `MODEL_CALL_START`. */
  readonly info?: ModelRequestInfo;
  readonly request: RecordedModelRequest;
  readonly events: readonly ModelEvent[];
  /** Set when the call failed after `events`. */
  readonly error?: ErrorInfo;
}

/**
 * One recorded reply: its events with ids and times made stable (see {@link stableEvents}).
 *
 * @example
 * ```ts
 * expect(stableEvents(replayedEvents)).toEqual(cassette.replies[0].events);
 * ```
 */
export interface RecordedReply {
  readonly agent: string;
  readonly events: readonly Readonly<Record<string, unknown>>[];
}

/**
 * A recording of one or more replies: every model call in order, and every reply's events.
 * Plain JSON; `ReplayChatModel` plays it back.
 *
 * @example
 * ```ts
 * const cassette: Cassette = { version: 1, modelCalls: [], replies: [] };
 * ```
 */
export interface Cassette {
  readonly version: number;
  readonly modelCalls: readonly RecordedModelCall[];
  readonly replies: readonly RecordedReply[];
}

const BASE_FIELDS = new Set(['id', 'replyId', 'createdAt', 'source', 'metadata']);

/** A model event of the stream as the model itself emitted it (the event fields the loop adds removed). */
export function toModelEvent(event: AgentEvent): ModelEvent {
  return Object.fromEntries(Object.entries(event).filter(([k]) => !BASE_FIELDS.has(k))) as unknown as ModelEvent;
}

/** The request as recorded (see {@link RecordedModelRequest}). */
export function recordRequest(
  request: Pick<ModelRequest, 'messages' | 'tools' | 'toolChoice' | 'options'>,
): RecordedModelRequest {
  return {
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    tools: request.tools.map((t) => t.name),
    toolChoice: request.toolChoice,
    options: JSON.parse(JSON.stringify(request.options ?? {})) as Record<string, unknown>,
  };
}

/**
 * Events with what differs from run to run made stable: no event id, reply id, session id or time, and
 * block ids and tool call ids renamed in order of appearance (`b1`, `b2`..., `c1`...). Two runs
 * of the same reply give equal stable events.
 *
 * @example
 * ```ts
 * expect(stableEvents(await lastValueFrom(agent.reply('hi').pipe(toArray())))).toEqual(cassette.replies[0].events);
 * ```
 */
export function stableEvents(events: readonly AgentEvent[]): Readonly<Record<string, unknown>>[] {
  const blocks = new Map<string, string>();
  const calls = new Map<string, string>();
  const rename = (map: Map<string, string>, prefix: string, id: string) => {
    if (!map.has(id)) map.set(id, `${prefix}${map.size + 1}`);
    return map.get(id)!;
  };
  const renameCalls = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(renameCalls);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k,
          (k === 'toolCallId' || (k === 'id' && 'name' in value)) && typeof v === 'string'
            ? rename(calls, 'c', v)
            : renameCalls(v),
        ]),
      );
    }
    return value;
  };
  return events.map((e) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e)) {
      if (k === 'id' || k === 'replyId' || k === 'createdAt' || k === 'sessionId') continue;
      out[k] = k === 'blockId' && typeof v === 'string' ? rename(blocks, 'b', v) : renameCalls(v);
    }
    return out;
  });
}

/** The first difference between two JSON values, as `path: recorded … but now …`; undefined when equal. */
export function firstDifference(recorded: unknown, current: unknown, path = 'request'): string | undefined {
  if (Object.is(recorded, current)) return undefined;
  const show = (v: unknown) => {
    const text = JSON.stringify(v) ?? String(v);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  };
  if (Array.isArray(recorded) && Array.isArray(current)) {
    for (let i = 0; i < Math.max(recorded.length, current.length); i++) {
      if (i >= recorded.length) return `${path}[${i}]: not recorded, but now ${show(current[i])}`;
      if (i >= current.length) return `${path}[${i}]: recorded ${show(recorded[i])}, but now missing`;
      const d = firstDifference(recorded[i], current[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (
    recorded &&
    current &&
    typeof recorded === 'object' &&
    typeof current === 'object' &&
    !Array.isArray(recorded) &&
    !Array.isArray(current)
  ) {
    const a = recorded as Record<string, unknown>;
    const b = current as Record<string, unknown>;
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[key], b[key], `${path}.${key}`);
      if (d) return d;
    }
    return undefined;
  }
  return `${path}: recorded ${show(recorded)}, but now ${show(current)}`;
}

/** Checks that `value` is a cassette this version reads; throws naming what is wrong. */
export function checkCassette(value: unknown, where = 'cassette'): Cassette {
  const c = value as Partial<Cassette> | null;
  if (!c || typeof c !== 'object') throw new TypeError(`${where}: not a cassette (expected a JSON object).`);
  if (c.version !== CASSETTE_VERSION)
    throw new TypeError(
      `${where}: cassette version ${JSON.stringify(c.version)} is not supported (expected ${CASSETTE_VERSION}).`,
    );
  if (!Array.isArray(c.modelCalls)) throw new TypeError(`${where}: 'modelCalls' must be an array.`);
  if (!Array.isArray(c.replies)) throw new TypeError(`${where}: 'replies' must be an array.`);
  c.modelCalls.forEach((call: Partial<RecordedModelCall>, i) => {
    if (
      typeof call?.model !== 'string' ||
      typeof call.provider !== 'string' ||
      !call.request ||
      !Array.isArray(call.events)
    ) {
      throw new TypeError(`${where}: modelCalls[${i}] needs 'model', 'provider', 'request' and 'events'.`);
    }
  });
  return c as Cassette;
}
