import { type MonoTypeOperatorFunction, Observable } from 'rxjs';

/**
 * Calls `cancel` when the subscriber unsubscribes before the source ended (completed, failed,
 * or emitted a value `isEnd` accepts). This turns "unsubscribe" into "stop the work on the
 * server" for a stream whose work runs detached there — the same contract `agent.reply()` has
 * in process.
 *
 * @example
 * ```ts
 * reply$.pipe(cancelOnUnsubscribe(() => postCancel(), (e) => e.type === 'REPLY_END'));
 * ```
 */
export function cancelOnUnsubscribe<T>(
  cancel: () => void,
  isEnd: (value: T) => boolean = () => false,
): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      let ended = false;
      const subscription = source.subscribe({
        next: (value) => {
          if (isEnd(value)) ended = true;
          subscriber.next(value);
        },
        error: (err: unknown) => {
          ended = true;
          subscriber.error(err);
        },
        complete: () => {
          ended = true;
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        if (!ended) cancel();
      };
    });
}
