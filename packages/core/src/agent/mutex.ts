import { finalize, Observable, switchMap } from 'rxjs';

/**
 * Runs one observable at a time: later ones wait their turn (FIFO). A waiter that unsubscribes
 * before its turn leaves the queue; the running one releases on completion, error or unsubscribe.
 */
export class ReplyQueue {
  private busy = false;
  private readonly waiters: Array<() => void> = [];

  run<T>(work: Observable<T>): Observable<T> {
    return this.acquire().pipe(switchMap(() => work.pipe(finalize(() => this.release()))));
  }

  get running(): boolean {
    return this.busy;
  }

  private acquire(): Observable<void> {
    return new Observable<void>((subscriber) => {
      const go = () => {
        subscriber.next();
        subscriber.complete();
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

  private release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.busy = false;
  }
}
