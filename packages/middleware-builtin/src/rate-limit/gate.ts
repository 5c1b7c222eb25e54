import type { SchedulerLike, Subscription } from 'rxjs';

/** A place in the queue of a {@link Gate}. */
export interface GateTicket {
  /** Leaves the gate: gives the place back while waiting, frees the slot once admitted. Idempotent. */
  release(): void;
}

interface Waiter {
  readonly enqueuedAt: number;
  readonly admit: (waitedMs: number, queued: boolean) => void;
  admitted: boolean;
  /** True while its own `enter` call runs: admitted then means it never queued. */
  entering: boolean;
  released: boolean;
}

/**
 * A FIFO admission gate: at most `maxConcurrent` holders at once, and at least `minIntervalMs`
 * between two admissions. Time and timers come from an RxJS scheduler.
 *
 * @internal The state of one {@link RateLimitMiddleware}.
 */
export class Gate {
  private readonly queue: Waiter[] = [];
  private running = 0;
  private lastStart = Number.NEGATIVE_INFINITY;
  private timer: Subscription | undefined;
  private pumping = false;
  private again = false;

  constructor(
    private readonly maxConcurrent: number,
    private readonly minIntervalMs: number,
    private readonly scheduler: SchedulerLike,
  ) {}

  /** Holders admitted and not yet released. */
  get active(): number {
    return this.running;
  }

  /** Waiters not yet admitted. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Queues a waiter; `admit` runs when its turn comes (synchronously, inside this call, when a
   * slot is free at once), with the time it waited and whether it had to queue.
   */
  enter(admit: (waitedMs: number, queued: boolean) => void): GateTicket {
    const waiter: Waiter = {
      enqueuedAt: this.scheduler.now(),
      admit,
      admitted: false,
      released: false,
      entering: true,
    };
    this.queue.push(waiter);
    this.pump();
    waiter.entering = false;
    return { release: () => this.release(waiter) };
  }

  private release(waiter: Waiter): void {
    if (waiter.released) return;
    waiter.released = true;
    if (waiter.admitted) this.running--;
    else {
      const i = this.queue.indexOf(waiter);
      if (i >= 0) this.queue.splice(i, 1);
    }
    this.pump();
  }

  /** Admits waiters in order while a slot is free and the interval allows; re-entrant safe. */
  private pump(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        this.admitWhilePossible();
      } while (this.again);
    } finally {
      this.pumping = false;
    }
  }

  private admitWhilePossible(): void {
    while (this.queue.length && this.running < this.maxConcurrent) {
      const now = this.scheduler.now();
      const wait = this.lastStart + this.minIntervalMs - now;
      if (wait > 0) {
        this.timer ??= this.scheduler.schedule(() => {
          this.timer = undefined;
          this.pump();
        }, wait);
        return;
      }
      const waiter = this.queue.shift()!;
      waiter.admitted = true;
      this.running++;
      this.lastStart = now;
      waiter.admit(now - waiter.enqueuedAt, !waiter.entering);
    }
    if (!this.queue.length && this.timer) {
      this.timer.unsubscribe();
      this.timer = undefined;
    }
  }
}
