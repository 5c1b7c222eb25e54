import { RxscopeError } from '@rxscope/core';

/** Which limit was hit: per reply or per session. */
export type LimitScope = 'reply' | 'session';

/** Options of {@link LimitExceededError}. */
export interface LimitExceededErrorOptions {
  readonly code: 'model_call_limit' | 'tool_call_limit';
  readonly scope: LimitScope;
  readonly limit: number;
  readonly used: number;
}

/**
 * A limit reached, as an error, for a middleware of your own that must end a reply with an error
 * rather than a policy end. (`ModelCallLimitMiddleware` and `ToolCallLimitMiddleware` end a reply
 * on purpose with `ctx.stop()`: `finishReason: 'stopped'`.) `resilient()` lets it propagate.
 *
 * @example
 * ```ts
 * return throwError(() => new LimitExceededError('3 searches per reply', { code: 'tool_call_limit', scope: 'reply', limit: 3, used: 3 }));
 * ```
 */
export class LimitExceededError extends RxscopeError {
  override readonly name = 'LimitExceededError';
  readonly code: LimitExceededErrorOptions['code'];
  readonly scope: LimitScope;
  readonly limit: number;
  readonly used: number;
  /** Never worth retrying: the same request hits the same limit. */
  readonly retryable = false;

  constructor(message: string, options: LimitExceededErrorOptions) {
    super(message);
    this.code = options.code;
    this.scope = options.scope;
    this.limit = options.limit;
    this.used = options.used;
  }
}
