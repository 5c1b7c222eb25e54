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

/**
 * What a model will send for a request, as far as the adapter knows it: the provider, the server
 * it talks to and the request options in effect (the adapter's defaults merged with the
 * request's), so tracing and usage reports can name them. Every field is optional.
 *
 * @example
 * ```ts
 * const info: ModelRequestInfo = { provider: 'openai', serverAddress: 'api.openai.com', serverPort: 443, stream: true, options: { temperature: 0.2 } };
 * ```
 */
export interface ModelRequestInfo {
  /** Provider name (`openai`, `anthropic`, ...). */
  readonly provider?: string;
  /** Host name or IP of the model server. */
  readonly serverAddress?: string;
  /** Port of the model server. */
  readonly serverPort?: number;
  /** Whether the response is streamed. */
  readonly stream?: boolean;
  /** The request options actually sent (`temperature`, `topP`, `maxTokens`, `stop`, `seed`, ...). */
  readonly options?: ModelOptions;
}

/**
 * Structured output asked of the model natively (OpenAI's `response_format: {type:
 * 'json_schema'}`): the answer's text must be JSON matching `schema`.
 *
 * @example
 * ```ts
 * const format: ResponseFormat = { type: 'json_schema', name: 'final_output', schema: { type: 'object', properties: {} }, strict: true };
 * ```
 */
export interface ResponseFormat {
  readonly type: 'json_schema';
  readonly name: string;
  readonly schema: Readonly<Record<string, unknown>>;
  /** Ask the provider to enforce the schema exactly (every property required, no others). */
  readonly strict: boolean;
}

/** What the model is asked in one call (the request of `ChatModel.stream`). */
export interface ModelRequest {
  /** The conversation, a `system` message first when the agent has a system prompt. */
  readonly messages: readonly Msg[];
  readonly tools: readonly ToolSchema[];
  readonly toolChoice: ToolChoice;
  readonly options: ModelOptions;
  /** Structured output asked natively; only sent to models with `supportsResponseFormat`. */
  readonly responseFormat?: ResponseFormat;
  /** Aborted when the consumer of this call unsubscribes: adapters must abort their request. */
  readonly signal: AbortSignal;
}
