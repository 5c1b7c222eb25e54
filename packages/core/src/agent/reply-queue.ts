import { Observable } from 'rxjs';

/**
 * Runs one observable at a time: later ones wait their turn (FIFO). A waiter that unsubscribes
 * before its turn leaves the queue; the running one releases on completion, error or unsubscribe.
 */
export class ReplyQueue {
  private busy = false;
  private readonly waiters: Array<() => void> = [];

  /**
   * `work` is called when the turn comes (as inside `defer`: a throw becomes an error
   * notification) and its Observable gets the subscriber directly (no switchMap/finalize
   * between): events pass no extra subscriber. `admit`, when given, runs at subscribe, before
   * the observable queues: a throw refuses it at once (an error notification).
   */
  run<T>(work: () => Observable<T>, admit?: () => void): Observable<T> {
    return new Observable<T>((subscriber) => {
      try {
        admit?.();
      } catch (err) {
        subscriber.error(err);
        return undefined;
      }
      const go = () => {
        let source: Observable<T>;
        try {
          source = work();
        } catch (err) {
          subscriber.error(err);
          this.release();
          return;
        }
        source.subscribe(subscriber);
        // Added after work's own teardown: released once the reply is torn down, as a finalize would.
        subscriber.add(() => this.release());
      };
      if (!this.busy) {
        this.busy = true;
        go();
        return undefined;
      }
      this.waiters.push(go);
      return () => {
        const i = this.waiters.indexOf(go);
        if (i >= 0) this.waiters.splice(i, 1);
      };
    });
  }

  get running(): boolean {
    return this.busy;
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.busy = false;
  }
}
