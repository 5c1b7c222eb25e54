import { type Observable, Observable as RxObservable, type Observer, Subscription, type Subscriber } from 'rxjs';

/**
 * Receives one step's values. It is a Subscription as well as an Observer, so RxJS links the
 * step's operators to it while subscribing: unsubscribing it stops the step even in the middle
 * of a synchronous run (an interrupt raised from inside the step takes effect at once).
 */
class StepObserver<E, S> extends Subscription implements Observer<E | S> {
  private nextStep: S | undefined;

  constructor(
    private readonly downstream: Subscriber<E>,
    private readonly isStep: (value: E | S) => value is S,
    private readonly done: (observer: StepObserver<E, S>, nextStep: S | undefined) => void,
  ) {
    super();
  }

  next(value: E | S): void {
    if (this.closed) return;
    if (this.isStep(value)) this.nextStep = value;
    else this.downstream.next(value);
  }

  error(err: unknown): void {
    if (this.closed) return;
    this.unsubscribe();
    this.downstream.error(err);
  }

  complete(): void {
    if (this.closed) return;
    this.unsubscribe();
    this.done(this, this.nextStep);
  }
}

/**
 * Runs a sequence of steps flatly: `run(step)` emits events and, as its last value, the next
 * step (or no step: the sequence completes). Like `expand` restricted to one step at a time,
 * with a trampoline instead of recursion: a step that completes synchronously hands over to the
 * next one in a loop, so a thousand iterations use the stack of one, and events pass straight
 * through with no per-event bookkeeping. Unsubscribing tears the running step down, even while
 * it is still running synchronously.
 *
 * @example
 * ```ts
 * const countdown = runSteps(3, (n) => (n > 0 ? of(`tick ${n}`, n - 1) : of('liftoff')), (v): v is number => typeof v === 'number');
 * ```
 */
export function runSteps<E, S>(
  first: S,
  run: (step: S) => Observable<E | S>,
  isStep: (value: E | S) => value is S,
): Observable<E> {
  return new RxObservable<E>((subscriber) => {
    let queued: S | undefined = first;
    let draining = false;
    const done = (observer: StepObserver<E, S>, nextStep: S | undefined): void => {
      subscriber.remove(observer);
      if (nextStep === undefined) {
        subscriber.complete();
        return;
      }
      queued = nextStep;
      drain();
    };
    const drain = (): void => {
      if (draining) return; // a step finished synchronously: the loop below picks up the next one
      draining = true;
      while (queued !== undefined && !subscriber.closed) {
        const step: S = queued;
        queued = undefined;
        const observer = new StepObserver<E, S>(subscriber, isStep, done);
        subscriber.add(observer);
        run(step).subscribe(observer);
      }
      draining = false;
    };
    drain();
  });
}
