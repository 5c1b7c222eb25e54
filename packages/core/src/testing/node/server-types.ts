// The shapes the test server's files share: a scripted turn, its faults and its wire rendering.
import type { Usage } from '../../event/events.js';
import type { ScriptedToolCall, ScriptedTurn } from '../scripted-turn.js';

/**
 * One tool call the server should make the "model" request: a {@link ScriptedToolCall}
 * (`{name, input}`, or raw `arguments` text), the same as `ScriptedChatModel`'s.
 *
 * @example
 * ```ts
 * const call: ServerToolCall = { name: 'get_weather', input: { city: 'Paris' }, id: 'call_1' };
 * ```
 */
export interface ServerToolCall extends Omit<ScriptedToolCall, 'arguments'> {
  /**
   * The raw JSON text of the arguments instead of `input` (to script invalid JSON). An object
   * here is the old spelling of `input`: deprecated, it keeps working until the next minor
   * version.
   */
  readonly arguments?: string | object;
}

/**
 * The old spelling of a turn's usage: the wire's names. Kept for one version.
 * @deprecated use `inputTokens`, `outputTokens`, `cacheReadTokens`, `reasoningTokens`.
 */
export interface ServerWireUsage {
  /** @deprecated use `inputTokens`. */
  readonly prompt_tokens?: number;
  /** @deprecated use `outputTokens`. */
  readonly completion_tokens?: number;
  /** @deprecated use `cacheReadTokens`. */
  readonly cached_tokens?: number;
  /** @deprecated use `reasoningTokens`. */
  readonly reasoning_tokens?: number;
}

/**
 * One scripted response of the test server: a {@link ScriptedTurn} (`text`, `thinking`,
 * `toolCalls` of `{name, input}`, `usage` in rxscope's words, `finishReason`), sent over the wire
 * as OpenAI does (`thinking` as `delta.reasoning_content`, `usage.inputTokens` as
 * `prompt_tokens`, `cacheReadTokens` as `prompt_tokens_details.cached_tokens`...), plus what only
 * HTTP has: a `fault`, `retryAfterSeconds`, `chunkDelayMs`, a `json` answer. The same turns
 * script `ScriptedChatModel` (without the HTTP fields).
 *
 * @example
 * ```ts
 * const turn: ServerTurn = { thinking: 'Think.', text: ['Hel', 'lo'], usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 8 } };
 * ```
 */
export interface ServerTurn extends Omit<ScriptedTurn, 'error' | 'toolCalls' | 'usage'> {
  /** Tool calls; streamed arguments are split over several chunks. */
  readonly toolCalls?: readonly ServerToolCall[];
  /** Reported usage. Default: rough counts from the request and the answer (no cache/reasoning details). */
  readonly usage?: Partial<Usage> & ServerWireUsage;
  /**
   * Reasoning, streamed before the text.
   * @deprecated use `thinking` (this spelling keeps working until the next minor version).
   */
  readonly reasoning?: string | readonly string[];
  readonly fault?: ServerFault;
  /** `Retry-After` of a `rate_limit` (or `server_error`) fault, in seconds. */
  readonly retryAfterSeconds?: number;
  /** Delay before each streamed chunk of this turn (overrides the server's `chunkDelayMs`). */
  readonly chunkDelayMs?: number;
  /**
   * A structured answer: sent as the JSON text of the message content (streamed in pieces), as a
   * server honouring `response_format` does. The request must ask for it (`response_format` of
   * type `json_schema` or `json_object`), else the server answers 400, as a test of the client.
   */
  readonly json?: unknown;
}

/**
 * A fault the {@link startOpenAITestServer} can inject into one turn.
 *
 * @example
 * ```ts
 * const server = await startOpenAITestServer({ script: [{ fault: 'drop_mid_stream', text: ['a', 'b', 'c'] }] });
 * ```
 */
export type ServerFault =
  /** HTTP 429 with a `Retry-After` header (`retryAfterSeconds`, default 1) and an OpenAI error body. */
  | 'rate_limit'
  /** HTTP 500 with an OpenAI error body. */
  | 'server_error'
  /** HTTP 401 with an OpenAI `invalid_api_key` error body. */
  | 'unauthorized'
  /** HTTP 404 with OpenAI's `model_not_found` error body (the model id the request named). */
  | 'model_not_found'
  /** Streams the first chunks, then destroys the connection (non-streaming: half a body). */
  | 'drop_mid_stream'
  /** Sends an SSE `data:` line that is not JSON (non-streaming: a body that is not JSON). */
  | 'malformed_sse'
  /** Tool-call arguments that are not valid JSON (the turn's calls, or one call of the first tool). */
  | 'malformed_tool_json'
  /** A tool call naming a tool the request did not declare. */
  | 'unknown_tool'
  /** A response whose `choices` array is empty. */
  | 'empty_choices'
  /** Sends the first chunk of content, then nothing until the client aborts or the server closes (non-streaming: headers only). */
  | 'stall';

/** A tool call as it goes on the wire. */
export interface WireToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** A turn rendered in the Chat Completions format: the whole completion and its stream chunks. */
export interface BuiltResponse {
  id: string;
  completion: Record<string, unknown>;
  chunks: Record<string, unknown>[];
  usageChunk: Record<string, unknown>;
}
