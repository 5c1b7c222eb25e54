import type { ErrorInfo } from '../event/events.js';
import { RxscopeError } from '../error/rxscope-error.js';

/** Options of {@link ModelError}. */
export interface ModelErrorOptions {
  /** HTTP status, when the failure came from a server. */
  readonly status?: number;
  /** True when the same request may succeed later (rate limits, 5xx, dropped connections). */
  readonly retryable?: boolean;
  /** How long the server asked to wait (from `Retry-After`). */
  readonly retryAfterMs?: number;
  /** Short machine-readable code (`rate_limited`, `timeout`, `malformed_response`...). */
  readonly code?: string;
  readonly cause?: unknown;
}

/**
 * A typed model failure, so retry and fallback middlewares decide without parsing strings.
 *
 * @example
 * ```ts
 * throw new ModelError('rate limited', { status: 429, retryable: true, retryAfterMs: 2000, code: 'rate_limited' });
 * ```
 */
export class ModelError extends RxscopeError {
  override readonly name = 'ModelError';
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  /** The code given, else `model_error`. */
  readonly code: string;

  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.code = options.code ?? 'model_error';
  }
}

/**
 * Describes any thrown value as a JSON-serialisable {@link ErrorInfo}.
 *
 * @example
 * ```ts
 * const info = toErrorInfo(new ModelError('boom', { status: 500, retryable: true }));
 * // { name: 'ModelError', message: 'boom', status: 500, retryable: true }
 * ```
 */
export function toErrorInfo(error: unknown): ErrorInfo {
  if (error instanceof Error) {
    const e = error as Error & { status?: unknown; retryable?: unknown; code?: unknown; retryAfterMs?: unknown };
    return {
      name: error.name,
      message: error.message,
      ...(typeof e.code === 'string' ? { code: e.code } : {}),
      ...(typeof e.status === 'number' ? { status: e.status } : {}),
      ...(typeof e.retryable === 'boolean' ? { retryable: e.retryable } : {}),
      ...(typeof e.retryAfterMs === 'number' ? { retryAfterMs: e.retryAfterMs } : {}),
    };
  }
  return { name: 'Error', message: typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error)) };
}

/**
 * "May the same request succeed later?": true for an error whose `retryable` flag is set, as
 * {@link ModelError} carries it (rate limits, 5xx, dropped connections). The default test of the
 * retry middleware; configuration errors and cancellations are never retryable. Read as a field,
 * so an error from a second copy of the library is judged the same.
 *
 * @example
 * ```ts
 * new RetryMiddleware({ shouldRetry: (e) => isRetryable(e) && !isCancellation(e) });
 * ```
 */
export function isRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
}

/**
 * True for a failure caused by cancellation (unsubscribe, interrupt; `code: 'cancelled'`): never
 * retried nor routed to a fallback model.
 *
 * @example
 * ```ts
 * catchError((e) => (isCancellation(e) ? EMPTY : throwError(() => e)));
 * ```
 */
export function isCancellation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'cancelled';
}
