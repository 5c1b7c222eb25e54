import { type Observable, retry, timer } from 'rxjs';
import {
  type AgentHandle,
  type AgentEvent,
  type Middleware,
  type ModelCallInput,
  ModelError,
  type Next,
  type RuntimeContext,
} from '../../index.js';

/** Calls `next` again when an attempt fails with a retryable ModelError. */
export class RetryOnce implements Middleware {
  onModelCall(
    _agent: AgentHandle,
    _ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    return next(input).pipe(
      retry({
        count: 1,
        delay: (err: unknown) => {
          if (err instanceof ModelError && err.retryable) return timer(err.retryAfterMs ?? 500);
          throw err;
        },
      }),
    );
  }
}
