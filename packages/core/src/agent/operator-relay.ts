import { type Observable, type Observer, Subscription, type Subscriber } from 'rxjs';

/** What a {@link relay} does with each notification of its source. */
export interface RelayHandlers<T, R> {
  /** Default: pass the value on. */
  readonly next?: (value: T, downstream: Subscriber<R>) => void;
  /** Default: pass the error on. */
  readonly error?: (err: unknown, downstream: Subscriber<R>) => void;
  /** Default: complete downstream. */
  readonly complete?: (downstream: Subscriber<R>) => void;
}

/**
 * One observer between a source and `downstream` that does the work of several operators at
 * once (a `tap`, a `catchError`, a `concat` of what follows...). It is a Subscription linked to
 * `downstream`, as an operator's subscriber is: unsubscribing downstream stops the source at once,
 * even in the middle of a synchronous run, and the source's operators see it closed. The hot
 * paths of the loop use it instead of operator chains: an event passes one function call here
 * instead of one subscriber per operator. `unsubscribe()` stops the source alone (downstream
 * stays open, e.g. to append the end of a reply); it may be called before `subscribeTo` returns.
 *
 * @example
 * ```ts
 * new Observable<AgentEvent>((subscriber) => {
 *   new Relay(subscriber, { error: (err, down) => finish(err, down), complete: (down) => finish(undefined, down) }).subscribeTo(steps$);
 * });
 * ```
 */
export class Relay<T, R = T> extends Subscription implements Observer<T> {
  constructor(
    private readonly downstream: Subscriber<R>,
    private readonly handlers: RelayHandlers<T, R> = {},
  ) {
    super();
  }

  /** Links this relay to downstream and subscribes it to `source`. */
  subscribeTo(source: Observable<T>): this {
    if (this.closed) return this;
    this.downstream.add(this);
    source.subscribe(this);
    return this;
  }

  next(value: T): void {
    if (this.closed) return;
    const next = this.handlers.next;
    if (next) next(value, this.downstream);
    else this.downstream.next(value as unknown as R);
  }

  error(err: unknown): void {
    if (this.closed) return;
    this.unsubscribe();
    const error = this.handlers.error;
    if (error) error(err, this.downstream);
    else this.downstream.error(err);
  }

  complete(): void {
    if (this.closed) return;
    this.unsubscribe();
    const complete = this.handlers.complete;
    if (complete) complete(this.downstream);
    else this.downstream.complete();
  }

  override unsubscribe(): void {
    if (this.closed) return;
    super.unsubscribe();
    this.downstream.remove(this);
  }
}
