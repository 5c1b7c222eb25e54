/**
 * # TimeoutMiddleware
 *
 * Time limits for the three things that can hang: a model call, a tool call and a whole reply.
 * Every limit is optional (unset = no limit); set the ones you need.
 *
 * - **Model call** (`modelCallMs`, `firstTokenMs`, `idleMs`): the call fails with a retryable
 *   `ModelError {code: 'timeout'}`, so a `RetryMiddleware` outside this layer retries it. Before
 *   failing, the attempt is ended well formed: its open blocks are closed and a
 *   `MODEL_CALL_END {finishReason: 'error', error}` is emitted; the HTTP request is aborted.
 *   `firstTokenMs` limits the wait for the first content (a block start or delta); `idleMs` the
 *   silence between two events (from the start of the call too, unless `firstTokenMs` is set).
 *   The clock starts with the call's first event (`MODEL_CALL_START`), so time spent waiting in
 *   a `RateLimitMiddleware` queue inside this layer does not count; `replyMs` bounds it.
 * - **Tool call** (`toolCallMs`): the tool's `signal` is aborted and the call gets an `error`
 *   result `Tool "x" failed: timed out after N ms`; the reply goes on (the model sees the error).
 *   The failure travels as a {@link ToolTimeoutError}, so an outer `onActing` layer may retry it.
 * - **Reply** (`replyMs`, counted from the moment the reply starts running, not while it waits
 *   in the agent's queue): the reply is stopped like `agent.interrupt()` does — the running model
 *   call and tools are cancelled, every open block is closed, unfinished tool calls get results —
 *   and it ends with `REPLY_END {finishReason: 'error', error: {code: 'timeout'}}`. `'error'`
 *   rather than `'interrupted'`: nobody asked for the stop, the caller's deadline was missed, so
 *   `agent.call()` rejects with an `AgentError` whose code is `timeout`. The partial reply is
 *   kept in the conversation. Should the reply still not end `replyGraceMs` after the deadline
 *   (an inner layer ignoring the interrupt), the layer fails it outright: never a hang. A reply
 *   that pauses for a confirmation or an external execution gets `replyMs` for each part it
 *   runs; the wait for the person or the executor does not count.
 *
 * Place it inside `RetryMiddleware`/`FallbackMiddleware` so each attempt gets its own model-call
 * limit. Timers run on an RxJS scheduler (`asyncScheduler` by default).
 *
 * @example
 * ```ts
 * import { RetryMiddleware, TimeoutMiddleware } from '@rxscope/middleware-builtin';
 *
 * const agent = new Agent({
 *   model,
 *   tools,
 *   middlewares: [
 *     new RetryMiddleware(),
 *     new TimeoutMiddleware({ replyMs: 120_000, modelCallMs: 60_000, idleMs: 15_000, toolCallMs: 30_000 }),
 *   ],
 * });
 * ```
 *
 * @module
 */
import { asyncScheduler, Observable, type SchedulerAction, type SchedulerLike, Subscription } from 'rxjs';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  type ErrorInfo,
  type Middleware,
  type ModelCallInput,
  ModelError,
  type Next,
  type RuntimeContext,
  toErrorInfo,
  closeOpenStream,
  OpenStream,
  RxscopeError,
  checkOptionKeys,
  optionKeys,
} from '@rxscope/core';
import { isStreamedContent } from '../retry/streamed.js';

/** Options of {@link TimeoutMiddleware}. All limits are in ms; unset means no limit. */
export interface TimeoutOptions {
  /** Whole duration of one model call (one attempt). */
  readonly modelCallMs?: number;
  /** Wait for the first content event of a model call. */
  readonly firstTokenMs?: number;
  /** Longest silence between two events of a model call. */
  readonly idleMs?: number;
  /** Duration of one tool call. */
  readonly toolCallMs?: number;
  /** Duration of a whole reply. */
  readonly replyMs?: number;
  /** How long a reply may take to end after its deadline before it is failed outright. Default 2 000. */
  readonly replyGraceMs?: number;
  /** Clock and timers. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** The failure of a tool call that ran longer than `toolCallMs`. */
export class ToolTimeoutError extends RxscopeError {
  override readonly name = 'ToolTimeoutError';
  readonly code = 'timeout';
  constructor(
    readonly toolName: string,
    readonly timeoutMs: number,
  ) {
    super(`timed out after ${timeoutMs} ms`);
  }
}

/** The failure of a reply that ran longer than `replyMs` (carried by its `REPLY_END`). */
export class ReplyTimeoutError extends RxscopeError {
  override readonly name = 'ReplyTimeoutError';
  readonly code = 'timeout';
  readonly retryable = false;
  constructor(readonly timeoutMs: number) {
    super(`the reply timed out after ${timeoutMs} ms`);
  }
}

// Every option, typed against TimeoutOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<TimeoutOptions>({
  modelCallMs: true,
  firstTokenMs: true,
  idleMs: true,
  toolCallMs: true,
  replyMs: true,
  replyGraceMs: true,
  scheduler: true,
});

/**
 * Time limits for model calls, tool calls and whole replies (see the module documentation).
 * Stateless: one instance may serve any number of agents and concurrent replies.
 */
export class TimeoutMiddleware implements Middleware {
  readonly key = 'timeout';
  private readonly options: TimeoutOptions;
  private readonly scheduler: SchedulerLike;

  constructor(options: TimeoutOptions = {}) {
    checkOptionKeys('TimeoutMiddleware', options, OPTION_KEYS);
    this.options = { ...options };
    this.scheduler = options.scheduler ?? asyncScheduler;
  }

  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    const { modelCallMs, firstTokenMs, idleMs } = this.options;
    if (modelCallMs === undefined && firstTokenMs === undefined && idleMs === undefined) return next(input);
    const scheduler = this.scheduler;
    return new Observable<AgentEvent>((subscriber) => {
      const tracker = new OpenStream();
      const inner = new Subscription();
      const timers = new Subscription();
      let firstToken: Subscription | undefined;
      let sawContent = false;
      let idleArmed = false;
      let lastEventAt = 0;

      const fire = (message: string) => {
        if (subscriber.closed) return;
        inner.unsubscribe(); // aborts the request
        timers.unsubscribe();
        const error = new ModelError(message, { code: 'timeout', retryable: true });
        for (const e of closeOpenStream(ctx, tracker, {
          status: 'error',
          why: error.message,
          error: toErrorInfo(error),
          answerCalls: false,
        }))
          subscriber.next(e);
        subscriber.error(error);
      };
      const armIdle = (ms: number) => {
        idleArmed = true;
        // One timer, not one per event: when it fires before the silence is long enough, the
        // action reschedules itself for the rest.
        timers.add(
          scheduler.schedule(function (this: SchedulerAction<unknown>) {
            const quiet = scheduler.now() - lastEventAt;
            if (quiet >= ms) fire(`the model sent nothing for ${ms} ms`);
            else this.schedule(undefined, ms - quiet);
          }, ms),
        );
      };

      // The clock starts with the call's first event (its MODEL_CALL_START, or the notice of a
      // rate limiter inside this layer): time spent queueing for the call does not count.
      let started = false;
      const startClock = () => {
        started = true;
        if (modelCallMs !== undefined)
          timers.add(scheduler.schedule(() => fire(`the model call took longer than ${modelCallMs} ms`), modelCallMs));
        if (firstTokenMs !== undefined) {
          firstToken = scheduler.schedule(
            () => fire(`the model sent no content within ${firstTokenMs} ms`),
            firstTokenMs,
          );
          timers.add(firstToken);
        } else if (idleMs !== undefined) armIdle(idleMs);
      };

      inner.add(
        next(input).subscribe({
          next: (e) => {
            tracker.apply(e);
            lastEventAt = scheduler.now();
            if (!started) startClock();
            if (!sawContent && isStreamedContent(e)) {
              sawContent = true;
              firstToken?.unsubscribe();
              if (idleMs !== undefined && !idleArmed) armIdle(idleMs);
            }
            subscriber.next(e);
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => subscriber.complete(),
        }),
      );
      return () => {
        timers.unsubscribe();
        inner.unsubscribe();
      };
    });
  }

  onActing(
    _agent: AgentHandle,
    _ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    const ms = this.options.toolCallMs;
    if (ms === undefined) return next(input);
    return new Observable<AgentEvent>((subscriber) => {
      const inner = new Subscription();
      const timer = this.scheduler.schedule(() => {
        inner.unsubscribe(); // aborts the tool's signal
        subscriber.error(new ToolTimeoutError(input.tool.name, ms));
      }, ms);
      // An observer of our own, not `subscriber` itself: unsubscribing `inner` must not close the outer stream.
      inner.add(
        next(input).subscribe({
          next: (e) => subscriber.next(e),
          error: (err: unknown) => subscriber.error(err),
          complete: () => subscriber.complete(),
        }),
      );
      return () => {
        timer.unsubscribe();
        inner.unsubscribe();
      };
    });
  }

  onAgent(agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    const ms = this.options.replyMs;
    if (ms === undefined) return next(input);
    const grace = this.options.replyGraceMs ?? 2_000;
    const scheduler = this.scheduler;
    return new Observable<AgentEvent>((subscriber) => {
      const inner = new Subscription();
      const timers = new Subscription();
      const failure = new ReplyTimeoutError(ms);
      const error: ErrorInfo = toErrorInfo(failure);
      let timedOut = false;
      timers.add(
        scheduler.schedule(() => {
          timedOut = true;
          // The graceful path: the loop cancels the running step, closes the reply and ends it.
          agent.interrupt(failure.message);
          timers.add(
            scheduler.schedule(() => {
              // The reply did not end: fail it from here (the agent closes it with REPLY_END {error}).
              inner.unsubscribe();
              subscriber.error(failure);
            }, grace),
          );
        }, ms),
      );
      inner.add(
        next(input).subscribe({
          next: (e) => {
            if (e.type === 'REPLY_END' && e.replyId === ctx.replyId && e.source === ctx.agentName) {
              timers.unsubscribe();
              if (timedOut && e.finishReason === 'interrupted') {
                subscriber.next({ ...e, finishReason: 'error', error });
                return;
              }
            }
            subscriber.next(e);
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => subscriber.complete(),
        }),
      );
      return () => {
        timers.unsubscribe();
        inner.unsubscribe();
      };
    });
  }
}
