import { type SchedulerLike, VirtualAction, VirtualTimeScheduler } from 'rxjs';

/**
 * A clock for tests of anything timed (timeouts, rate limits, retry backoff, heartbeats): hand
 * its `scheduler` to the code under test, then move time by hand. Nothing waits for real.
 *
 * @example
 * ```ts
 * const clock = virtualClock();
 * const agent = new Agent({ model, middlewares: [new TimeoutMiddleware({ modelCallMs: 5_000, scheduler: clock.scheduler })] });
 * const events = collect(agent.reply('hi'));
 * clock.advanceBy(5_000); // the model call times out now
 * ```
 */
export interface VirtualClock {
  /** The scheduler to pass to the code under test (its `now()` is the virtual time). */
  readonly scheduler: SchedulerLike & VirtualTimeScheduler;
  /** Virtual time now, in ms since the clock was made. */
  now(): number;
  /** Runs everything due up to virtual time `ms` (never moves backwards). */
  advanceTo(ms: number): void;
  /** Moves the clock `ms` forward, running everything due on the way. */
  advanceBy(ms: number): void;
  /** How many actions are still scheduled. */
  pending(): number;
}

/**
 * Makes a {@link VirtualClock} starting at 0.
 *
 * @example
 * ```ts
 * const clock = virtualClock();
 * timer(1000, clock.scheduler).subscribe(() => fired = true);
 * clock.advanceBy(999); // not yet
 * clock.advanceBy(1);   // fired
 * ```
 */
export function virtualClock(): VirtualClock {
  const scheduler = new VirtualTimeScheduler(VirtualAction, 0);
  const advanceTo = (ms: number): void => {
    scheduler.maxFrames = ms;
    scheduler.flush();
    scheduler.frame = Math.max(scheduler.frame, ms);
  };
  return {
    scheduler,
    now: () => scheduler.frame,
    advanceTo,
    advanceBy: (ms) => advanceTo(scheduler.frame + ms),
    pending: () => scheduler.actions.length,
  };
}
