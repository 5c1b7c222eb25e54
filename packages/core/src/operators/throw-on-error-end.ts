import { defer, type MonoTypeOperatorFunction, Observable } from 'rxjs';
import { AgentError } from '../agent/errors.js';
import type { AgentEvent } from '../event/events.js';

/**
 * Options of {@link throwOnErrorEnd}.
 *
 * @example
 * ```ts
 * const options: ThrowOnErrorEndOptions = { source: 'assistant' };
 * agent.reply('hi').pipe(throwOnErrorEnd(options));
 * ```
 */
export interface ThrowOnErrorEndOptions {
  /** The name of the agent whose error end fails the stream. Default: the source of the first `REPLY_START`. */
  readonly source?: string;
}

/**
 * Turns a reply that ends with `REPLY_END {finishReason: 'error'}` into an error notification:
 * the events before it pass through, and instead of that `REPLY_END` the stream errors with an
 * {@link AgentError} (its `info` is the end's `error`: `name`, `message`, `code`, `status`,
 * `retryable`). Every other ending (`completed`, `interrupted`, `stopped`...) passes through and
 * completes as usual.
 *
 * `agent.reply()` reports failures as an error end, not as an Observable error, so a UI keeps
 * what streamed so far and the agent keeps a consistent conversation. Use this operator when you
 * want RxJS error semantics instead: `catchError`, `retry` (each retry subscribes again, so it
 * runs a new reply, and the failed one stays in the conversation), `lastValueFrom` rejecting.
 *
 * Only the outer reply counts: the error end of a subagent reply forwarded through the stream
 * (`asTool`) is a tool result for the outer agent, not a failure of the stream. The outer reply is
 * the one whose `REPLY_START` comes first (or pass `source`, the agent's name).
 *
 * @example
 * ```ts
 * agent.reply('What is 2 + 3?').pipe(
 *   throwOnErrorEnd(),
 *   catchError((e: unknown) => of(`sorry: ${(e as AgentError).info.message}`)),
 * ).subscribe(render);
 * ```
 */
export function throwOnErrorEnd(options: ThrowOnErrorEndOptions = {}): MonoTypeOperatorFunction<AgentEvent> {
  return (source$) =>
    defer(() => {
      let outer = options.source;
      return new Observable<AgentEvent>((subscriber) =>
        source$.subscribe({
          next: (event) => {
            if (event.type === 'REPLY_START') outer ??= event.source;
            if (
              event.type === 'REPLY_END' &&
              event.finishReason === 'error' &&
              (outer === undefined || event.source === outer)
            ) {
              subscriber.error(
                new AgentError(event.error ?? { name: 'Error', message: 'the reply failed' }, event.replyId),
              );
              return;
            }
            subscriber.next(event);
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => subscriber.complete(),
        }),
      );
    });
}
