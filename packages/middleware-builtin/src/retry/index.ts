/**
 * # RetryMiddleware
 *
 * Calls the model again when an attempt fails with a retryable error (HTTP 429 and 5xx, dropped
 * connections, timeouts: `ModelError.retryable`), waiting with exponential backoff and jitter,
 * and at least as long as the server asked (`ModelError.retryAfterMs`, from `Retry-After`).
 *
 * **What the consumer sees.** Every attempt stays a well-formed model call on the stream:
 * `MODEL_CALL_START … MODEL_CALL_END {finishReason: 'error', error}` for a failed attempt, so
 * tracing and budgets see each attempt, then a `CUSTOM {name: 'retry'}` event announcing the wait,
 * then the next attempt. Content is never shown twice:
 *
 * - default (`buffer: false`): content streams live; an attempt that already streamed content
 *   (a block start, a delta...) is not retried and its error propagates, because the consumer
 *   has rendered part of an answer that a new attempt would repeat;
 * - `buffer: true`: the content of each attempt is held back and emitted only when the attempt
 *   succeeds, so an attempt may be retried even after it streamed. The consumer sees the answer
 *   at once instead of token by token. The content of a failed attempt is never emitted, not
 *   even after the last attempt (only its `MODEL_CALL_START`/`MODEL_CALL_END`), so an outer
 *   fallback layer can still try another model.
 *
 * Delays run on an RxJS scheduler (`asyncScheduler` by default; pass a `TestScheduler` in tests):
 * unsubscribing during a wait cancels it. A cancelled call (interrupt, unsubscribe) is never
 * retried.
 *
 * @example
 * ```ts
 * import { RetryMiddleware } from '@rxscope/middleware-builtin';
 *
 * const agent = new Agent({
 *   model,
 *   middlewares: [new RetryMiddleware({ maxRetries: 4, initialDelayMs: 1_000 })],
 * });
 * agent.reply('hi').subscribe((e) => {
 *   if (e.type === 'CUSTOM' && e.name === 'retry') console.log('retrying', e.value); // { attempt: 2, delayMs: 1043, ... }
 * });
 * ```
 *
 * @module
 */
import {
  asyncScheduler,
  catchError,
  concat,
  defer,
  EMPTY,
  filter,
  from,
  ignoreElements,
  type Observable,
  of,
  type SchedulerLike,
  tap,
  timer,
} from 'rxjs';
import {
  type AgentHandle,
  type AgentEvent,
  type Middleware,
  type ModelCallInput,
  type Next,
  type RuntimeContext,
  toErrorInfo,
  isCancellation,
  isRetryable,
  checkOptionKeys,
  optionKeys,
} from '@rxscope/core';
import { isStreamedContent, rethrow } from './streamed.js';

/** Options of {@link RetryMiddleware}. */
export interface RetryOptions {
  /** Retries after the first attempt (so at most `maxRetries + 1` calls). Default 3. */
  readonly maxRetries?: number;
  /** Backoff before the first retry, in ms. Default 500. */
  readonly initialDelayMs?: number;
  /** Upper bound of the backoff (not of a server's `Retry-After`). Default 30 000. */
  readonly maxDelayMs?: number;
  /** Growth of the backoff per retry. Default 2. */
  readonly factor?: number;
  /**
   * Fraction of the backoff that is random, from 0 (none) to 1 ("full jitter": anywhere between
   * 0 and the backoff). Default 0.5: between half the backoff and the backoff.
   */
  readonly jitter?: number;
  /**
   * A server asking to wait longer than this (`Retry-After`) is not retried: the error
   * propagates at once rather than holding the reply. Default 60 000.
   */
  readonly maxRetryAfterMs?: number;
  /** Hold each attempt's content until it succeeds, so attempts that streamed may be retried. Default false. */
  readonly buffer?: boolean;
  /**
   * Whether a failure may be retried; `attempt` is the number of the failed attempt (1 = the
   * first call). Default: the error's `retryable` flag (`ModelError.retryable`).
   */
  readonly shouldRetry?: (error: unknown, attempt: number) => boolean;
  /** Scheduler of the waits. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Random numbers in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
}

/** Value of the `CUSTOM {name: 'retry'}` event emitted before each wait. */
export interface RetryEventValue {
  /** The attempt about to start (2 = first retry). */
  readonly attempt: number;
  readonly maxRetries: number;
  /** How long the middleware waits before it. */
  readonly delayMs: number;
  /** The server's `Retry-After`, when it sent one. */
  readonly retryAfterMs?: number;
  readonly model: string;
  /** The failure of the previous attempt. */
  readonly error: ReturnType<typeof toErrorInfo>;
}

// Every option, typed against RetryOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<RetryOptions>({
  maxRetries: true,
  initialDelayMs: true,
  maxDelayMs: true,
  factor: true,
  jitter: true,
  maxRetryAfterMs: true,
  buffer: true,
  shouldRetry: true,
  scheduler: true,
  random: true,
});

/**
 * Retries failed model calls with exponential backoff and jitter (see the module documentation).
 * Stateless: one instance may serve any number of agents and concurrent replies.
 */
export class RetryMiddleware implements Middleware {
  readonly key = 'retry';
  private readonly maxRetries: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly maxRetryAfterMs: number;
  private readonly buffer: boolean;
  private readonly shouldRetry: (error: unknown, attempt: number) => boolean;
  private readonly scheduler: SchedulerLike;
  private readonly random: () => number;

  constructor(options: RetryOptions = {}) {
    checkOptionKeys('RetryMiddleware', options, OPTION_KEYS, {
      foreign: { maxAttempts: 'maxRetries', attempts: 'maxRetries' },
    });
    this.maxRetries = Math.max(0, Math.floor(options.maxRetries ?? 3));
    this.initialDelayMs = Math.max(0, options.initialDelayMs ?? 500);
    this.maxDelayMs = Math.max(this.initialDelayMs, options.maxDelayMs ?? 30_000);
    this.factor = Math.max(1, options.factor ?? 2);
    this.jitter = Math.min(1, Math.max(0, options.jitter ?? 0.5));
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    this.buffer = options.buffer ?? false;
    this.shouldRetry = options.shouldRetry ?? ((error) => isRetryable(error));
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.random = options.random ?? Math.random;
  }

  /**
   * The wait before retrying after failed attempt number `attempt` (1-based):
   * `min(maxDelayMs, initialDelayMs · factor^(attempt-1))`, minus up to `jitter` of it at random,
   * and never less than the error's `retryAfterMs`.
   *
   * @example
   * ```ts
   * new RetryMiddleware({ initialDelayMs: 100, jitter: 0 }).delayFor(3, new Error('x')); // 400
   * ```
   */
  delayFor(attempt: number, error: unknown): number {
    const backoff = Math.min(this.maxDelayMs, this.initialDelayMs * this.factor ** Math.max(0, attempt - 1));
    const jittered = Math.round(backoff * (1 - this.jitter * this.random()));
    const retryAfter = retryAfterOf(error);
    return retryAfter === undefined ? jittered : Math.max(retryAfter, jittered);
  }

  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    const attempt = (n: number): Observable<AgentEvent> =>
      defer(() => {
        const failed = (error: unknown, streamed: boolean, leftovers: readonly AgentEvent[]) =>
          this.afterFailure(ctx, input, n, error, streamed, leftovers, () => attempt(n + 1));
        // Inner layers see which call of the step this is (`input.attempt`).
        const call = n === 1 ? input : { ...input, attempt: (input.attempt ?? 1) + n - 1 };
        if (!this.buffer) {
          let streamed = false;
          return next(call).pipe(
            tap((e) => {
              if (!streamed && isStreamedContent(e)) streamed = true;
            }),
            catchError((error: unknown) => failed(error, streamed, [])),
          );
        }
        // Buffered: content and MODEL_CALL_END wait for the attempt's outcome; other events
        // (MODEL_CALL_START, CUSTOM) pass at once so that tracing sees the attempt start.
        const held: AgentEvent[] = [];
        return concat(
          next(call).pipe(
            filter((e) => {
              if (isStreamedContent(e) || e.type === 'MODEL_CALL_END') {
                held.push(e);
                return false;
              }
              return true;
            }),
          ),
          defer(() => from(held)),
        ).pipe(
          catchError((error: unknown) =>
            failed(
              error,
              false,
              held.filter((e) => e.type === 'MODEL_CALL_END'),
            ),
          ),
        );
      });
    return attempt(1);
  }

  private afterFailure(
    ctx: RuntimeContext,
    input: ModelCallInput,
    attempt: number,
    error: unknown,
    streamed: boolean,
    leftovers: readonly AgentEvent[],
    retry: () => Observable<AgentEvent>,
  ): Observable<AgentEvent> {
    const before = leftovers.length ? from(leftovers) : EMPTY;
    const retryAfterMs = retryAfterOf(error);
    const give =
      streamed ||
      attempt > this.maxRetries ||
      input.signal.aborted ||
      isCancellation(error) ||
      (retryAfterMs !== undefined && retryAfterMs > this.maxRetryAfterMs) ||
      !this.shouldRetry(error, attempt);
    if (give) return concat(before, rethrow(error));
    const delayMs = this.delayFor(attempt, error);
    const value: RetryEventValue = {
      attempt: attempt + 1,
      maxRetries: this.maxRetries,
      delayMs,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      model: input.model.modelName,
      error: toErrorInfo(error),
    };
    return concat(
      before,
      of(ctx.event('CUSTOM', { name: 'retry', value })),
      delayMs > 0 ? timer(delayMs, this.scheduler).pipe(ignoreElements()) : EMPTY,
      retry(),
    );
  }
}

function retryAfterOf(error: unknown): number | undefined {
  const v =
    typeof error === 'object' && error !== null ? (error as { retryAfterMs?: unknown }).retryAfterMs : undefined;
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}
