import type { Observable } from 'rxjs';
import type { ModelEvent } from '../event/events.js';
import type { ModelRequest, ModelRequestInfo } from '../event/model-request.js';

export type {
  ModelOptions,
  ModelRequest,
  ModelRequestInfo,
  ResponseFormat,
  ToolChoice,
  ToolSchema,
} from '../event/model-request.js';

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
  /**
   * The model honours `ModelRequest.responseFormat` (native structured output). Without it, a
   * reply with `output` gives the model a `final_output` tool instead. Default false.
   */
  readonly supportsResponseFormat?: boolean;
  stream(request: ModelRequest): Observable<ModelEvent>;
  /**
   * Optional: what a call with this request will send ({@link ModelRequestInfo}). The model step
   * puts it on `MODEL_CALL_START` as `request`.
   */
  describeRequest?(request: Omit<ModelRequest, 'signal'>): ModelRequestInfo;
}
