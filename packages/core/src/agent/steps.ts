import { Observable, type Subscription } from 'rxjs';

/**
 * Runs a sequence of steps flatly: `run(step)` emits events and, as its last value, the next
 * step (or no step: the sequence completes). Like `expand` restricted to one step at a time,
 * with a trampoline instead of recursion: a step that completes synchronously hands over to the
 * next one in a loop, so a thousand iterations use the stack of one, and events pass straight
 * through with no per-event bookkeeping. Unsubscribing tears the running step down.
 *
 * @example
 * ```ts
 * const countdown = runSteps(3, (n) => (n > 0 ? of(`tick ${n}`, n - 1) : of('liftoff')), (v): v is number => typeof v === 'number');
 * ```
 */
export function runSteps<E, S>(first: S, run: (step: S) => Observable<E | S>, isStep: (value: E | S) => value is S): Observable<E> {
  return new Observable<E>((subscriber) => {
    let inner: Subscription | undefined;
    let queued: S | undefined = first;
    let draining = false;
    const drain = (): void => {
      if (draining) return; // a step finished synchronously: the loop below picks up the next one
      draining = true;
      while (queued !== undefined && !subscriber.closed) {
        const step: S = queued;
        queued = undefined;
        let next: S | undefined;
        inner = run(step).subscribe({
          next: (value) => {
            if (isStep(value)) next = value;
            else subscriber.next(value);
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => {
            if (next === undefined) {
              subscriber.complete();
              return;
            }
            queued = next;
            drain();
          },
        });
      }
      draining = false;
    };
    drain();
    return () => inner?.unsubscribe();
  });
}
