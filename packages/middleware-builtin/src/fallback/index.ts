/**
 * # FallbackMiddleware
 *
 * When a model call fails, calls the next model of a list instead: the agent's own model
 * first, then `models` in order, until one answers. Useful against an outage of one provider,
 * a revoked key, or a context window that is too small (`context_length_exceeded` → a larger
 * model).
 *
 * **Same rule as retry**: a model that already streamed content before failing is not replaced
 * (its error propagates), so the consumer never sees two answers. Put a
 * `RetryMiddleware({ buffer: true })` inside this layer to fall back even after content.
 *
 * **Which model answered** is on the stream: each attempt is a well-formed model call whose
 * `MODEL_CALL_START`/`MODEL_CALL_END` carry `model` (the `modelName` of the model called), and a
 * `CUSTOM {name: 'fallback', value: {from, to, error}}` event comes before each switch. When every
 * model failed, the last model's error propagates.
 *
 * @example
 * ```ts
 * import { FallbackMiddleware, RetryMiddleware } from '@rxscope/middleware-builtin';
 *
 * const agent = new Agent({
 *   model: primary,
 *   middlewares: [new FallbackMiddleware({ models: [backup] }), new RetryMiddleware()],
 * });
 * ```
 *
 * @module
 */
import { catchError, concat, defer, type Observable, of, tap } from 'rxjs';
import {
  type AgentHandle,
  type AgentEvent,
  type ChatModel,
  type Middleware,
  type ModelCallInput,
  type Next,
  type RuntimeContext,
  toErrorInfo,
  isCancellation,
  checkOptionKeys,
  optionKeys,
} from '@rxscope/core';
import { isStreamedContent, rethrow } from '../retry/streamed.js';

/** Options of {@link FallbackMiddleware}. */
export interface FallbackOptions {
  /** Models tried after the agent's model, in order (the agent's own model is skipped if listed). Default none. */
  readonly models?: readonly ChatModel[];
  /**
   * Whether to move on to the next model after `model` failed with `error`. Default: every
   * failure except a cancellation (interrupt, unsubscribe).
   */
  readonly shouldFallback?: (error: unknown, model: ChatModel) => boolean;
}

/** Value of the `CUSTOM {name: 'fallback'}` event emitted before switching models. */
export interface FallbackEventValue {
  /** `modelName` of the model that failed. */
  readonly from: string;
  /** `modelName` of the model called next. */
  readonly to: string;
  readonly error: ReturnType<typeof toErrorInfo>;
}

// Every option, typed against FallbackOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<FallbackOptions>({
  models: true,
  shouldFallback: true,
});

/**
 * Falls back to the next model of a list when a model call fails (see the module documentation).
 * Stateless: one instance may serve any number of agents and concurrent replies.
 */
export class FallbackMiddleware implements Middleware {
  readonly key = 'fallback';
  private readonly models: readonly ChatModel[];
  private readonly shouldFallback: (error: unknown, model: ChatModel) => boolean;

  constructor(options: FallbackOptions = {}) {
    checkOptionKeys('FallbackMiddleware', options, OPTION_KEYS, { foreign: { fallbacks: 'models' } });
    this.models = [...(options.models ?? [])];
    this.shouldFallback = options.shouldFallback ?? (() => true);
  }

  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    const chain = [input.model, ...this.models.filter((m) => m !== input.model)];
    const attempt = (i: number): Observable<AgentEvent> =>
      defer(() => {
        const model = chain[i]!;
        let streamed = false;
        return next(i === 0 ? input : { ...input, model, attempt: (input.attempt ?? 1) + i }).pipe(
          tap((e) => {
            if (!streamed && isStreamedContent(e)) streamed = true;
          }),
          catchError((error: unknown) => {
            const to = chain[i + 1];
            if (
              streamed ||
              !to ||
              input.signal.aborted ||
              isCancellation(error) ||
              !this.shouldFallback(error, model)
            ) {
              return rethrow(error);
            }
            const value: FallbackEventValue = { from: model.modelName, to: to.modelName, error: toErrorInfo(error) };
            return concat(of(ctx.event('CUSTOM', { name: 'fallback', value })), attempt(i + 1));
          }),
        );
      });
    return attempt(0);
  }
}
