import { catchError, concat, concatMap, defer, type Observable, of } from 'rxjs';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  ContextToken,
  type Middleware,
  type ModelCallInput,
  type Next,
  type RuntimeContext,
} from '../../index.js';

/** Per-reply totals: one value per reply, in the reply's context (the middleware stays stateless). */
const TIMING_TOTALS = new ContextToken('timing.totals', () => ({ modelMs: 0, toolMs: 0 }));

export interface TimingOptions {
  /** Clock in milliseconds. Default: `performance.now()`. */
  readonly now?: () => number;
}

/**
 * Measures every model call and every tool call, and reports each as a `CUSTOM` event right after
 * it ends (`timing.model_call`, `timing.tool_call`), then the reply's totals (`timing.reply`)
 * just before `REPLY_END`.
 */
export class TimingMiddleware implements Middleware {
  readonly key = 'timing';
  private readonly now: () => number;

  constructor(options: TimingOptions = {}) {
    this.now = options.now ?? (() => performance.now());
  }

  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    return this.timed(next(input), (ms, failed) => {
      const totals = ctx.get(TIMING_TOTALS);
      ctx.set(TIMING_TOTALS, { ...totals, modelMs: totals.modelMs + ms });
      return ctx.event('CUSTOM', {
        name: 'timing.model_call',
        value: { model: input.model.modelName, iteration: ctx.iteration, ms, failed },
      });
    });
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    return this.timed(next(input), (ms, failed) => {
      const totals = ctx.get(TIMING_TOTALS);
      ctx.set(TIMING_TOTALS, { ...totals, toolMs: totals.toolMs + ms });
      return ctx.event('CUSTOM', {
        name: 'timing.tool_call',
        value: { tool: input.tool.name, toolCallId: input.toolCall.id, ms, failed },
      });
    });
  }

  onAgent(_agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    // An onAgent layer emits its own events between the reply's REPLY_START and REPLY_END.
    return next(input).pipe(
      concatMap((e) =>
        e.type === 'REPLY_END' && e.replyId === ctx.replyId
          ? of(ctx.event('CUSTOM', { name: 'timing.reply', value: ctx.get(TIMING_TOTALS) }), e)
          : of(e),
      ),
    );
  }

  /** Passes `source` through, then appends one event built from its duration (also on failure). */
  private timed(
    source: Observable<AgentEvent>,
    done: (ms: number, failed: boolean) => AgentEvent,
  ): Observable<AgentEvent> {
    return defer(() => {
      const startedAt = this.now();
      return concat(
        source.pipe(
          catchError((err: unknown) =>
            concat(
              of(done(this.now() - startedAt, true)),
              defer(() => {
                throw err; // the failure goes on outward, after the timing event
              }),
            ),
          ),
        ),
        defer(() => of(done(this.now() - startedAt, false))),
      );
    });
  }
}
