import { RxscopeError } from '../error/rxscope-error.js';
/** What went wrong in {@link AgentStreamError}. */
export type AgentStreamErrorKind =
  /** The server answered with an HTTP error status (`status`, `body`). */
  | 'http'
  /** The response is not `text/event-stream` or has no body. */
  | 'not_event_stream'
  /** An SSE message whose data is not JSON or not an `AgentEvent` (`eventId` names it). */
  | 'invalid_event'
  /** The connection failed or broke mid-stream (the `cause` says how). */
  | 'network';

/**
 * The error `fromAgentEventStream` fails with.
 *
 * @example
 * ```ts
 * fromAgentEventStream('/api/chat').subscribe({ error: (e) => e instanceof AgentStreamError && e.status === 409 && showBusy() });
 * ```
 */
export class AgentStreamError extends RxscopeError {
  override readonly name = 'AgentStreamError';
  /** The same as `kind`. */
  readonly code: AgentStreamErrorKind;
  constructor(
    readonly kind: AgentStreamErrorKind,
    message: string,
    readonly details: {
      readonly status?: number;
      readonly body?: string;
      readonly eventId?: string;
      readonly cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = kind;
  }

  /** The HTTP status of an `http` error. */
  get status(): number | undefined {
    return this.details.status;
  }

  /** True when trying again may help: a network failure, a 5xx, 408 or 429. */
  get retryable(): boolean {
    if (this.kind === 'network') return true;
    const status = this.details.status;
    return this.kind === 'http' && status !== undefined && (status >= 500 || status === 408 || status === 429);
  }
}
