import type { Observable } from 'rxjs';
import type { ModelEvent } from '../event/events.js';
import type { Msg } from '../message/blocks.js';

/**
 * How the model may use tools: let it choose, forbid tools, require one, or name the tool.
 *
 * @example
 * ```ts
 * const choice: ToolChoice = { name: 'get_weather' };
 * ```
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly name: string };

/** A tool as the model sees it: name, description and JSON Schema of the arguments. */
export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** Sampling and request options passed through to the model. */
export interface ModelOptions {
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxTokens?: number;
  readonly stop?: readonly string[];
  readonly seed?: number;
  readonly [option: string]: unknown;
}

/** What the model is asked in one call (the request of {@link ChatModel.stream}). */
export interface ModelRequest {
  /** The conversation, a `system` message first when the agent has a system prompt. */
  readonly messages: readonly Msg[];
  readonly tools: readonly ToolSchema[];
  readonly toolChoice: ToolChoice;
  readonly options: ModelOptions;
  /** Aborted when the consumer of this call unsubscribes: adapters must abort their request. */
  readonly signal: AbortSignal;
}

/**
 * A chat model: turns a request into a cold `Observable` of {@link ModelEvent}s ending with one
 * `MODEL_CALL_END`. Block ids must be unique (use `newId`). Failures are error notifications,
 * preferably {@link ModelError}s. Unsubscribing must abort the underlying request.
 *
 * @example
 * ```ts
 * const echo: ChatModel = {
 *   modelName: 'echo', provider: 'local',
 *   stream: (req) => of(
 *     { type: 'TEXT_BLOCK_START', blockId: 'b1' },
 *     { type: 'TEXT_BLOCK_DELTA', blockId: 'b1', delta: 'hi' },
 *     { type: 'TEXT_BLOCK_END', blockId: 'b1' },
 *     { type: 'MODEL_CALL_END', model: 'echo', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
 *   ),
 * };
 * ```
 */
export interface ChatModel {
  readonly modelName: string;
  /** Provider name for telemetry (`openai`, `anthropic`, ...). */
  readonly provider: string;
  stream(request: ModelRequest): Observable<ModelEvent>;
}
