/**
 * Cooperative scheduling for long searches on the main thread: work runs in slices of a few
 * milliseconds, and between slices the event loop gets a turn (timers, sockets, other replies).
 * Check {@link TimeSlice.due} in the loop (it is cheap) and `await next()` when it is true.
 *
 * @example
 * ```ts
 * const slice = new TimeSlice();
 * for (const line of lines) {
 *   if (slice.due) await slice.next();
 *   search(line);
 * }
 * ```
 */
export class TimeSlice {
  private started = performance.now();

  /** @param sliceMs Longest run between two turns of the event loop. Default 4 ms. */
  constructor(private readonly sliceMs = 4) {}

  /** True when the current slice is used up. */
  get due(): boolean {
    return performance.now() - this.started >= this.sliceMs;
  }

  /** Gives the event loop a turn (setImmediate: after pending I/O), then starts a new slice. */
  async next(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
