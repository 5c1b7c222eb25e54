import { type MonoTypeOperatorFunction, Observable } from 'rxjs';
import type { AgentEvent } from '@rxscope/core';

/**
 * Emits each event, then whatever `extra` returns for it (nothing when it returns `undefined`).
 * A throw in `extra` becomes an error notification.
 */
export function emitAfter(
  extra: (event: AgentEvent) => readonly AgentEvent[] | undefined,
): MonoTypeOperatorFunction<AgentEvent> {
  return (source) =>
    new Observable<AgentEvent>((subscriber) =>
      source.subscribe({
        next: (event) => {
          let more: readonly AgentEvent[] | undefined;
          try {
            more = extra(event);
          } catch (err) {
            subscriber.error(err);
            return;
          }
          subscriber.next(event);
          if (more) for (const e of more) subscriber.next(e);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      }),
    );
}
