import { catchError, concat, from, type Observable, tap, throwError, timeout } from 'rxjs';
import {
  type AgentHandle,
  type AgentEvent,
  closeOpenStream,
  type Middleware,
  type ModelCallInput,
  ModelError,
  type Next,
  OpenStream,
  type RuntimeContext,
  toErrorInfo,
} from '../../index.js';

/** Cuts a model call that goes silent for `ms`, ending it well formed as a retryable failure. */
export class SilenceGuard implements Middleware {
  readonly key = 'silence-guard';
  constructor(private readonly ms: number) {}

  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    const open = new OpenStream();
    const silent = () =>
      new ModelError(`the model sent nothing for ${this.ms} ms`, { code: 'timeout', retryable: true });
    return next(input).pipe(
      timeout({ each: this.ms, with: () => throwError(() => silent()) }),
      tap((e) => open.apply(e)),
      catchError((err: unknown) => {
        const why = toErrorInfo(err).message;
        const closing = closeOpenStream(ctx, open, {
          status: 'error',
          why,
          error: toErrorInfo(err),
          answerCalls: false,
        });
        return concat(
          from(closing),
          throwError(() => err as Error),
        );
      }),
    );
  }
}
