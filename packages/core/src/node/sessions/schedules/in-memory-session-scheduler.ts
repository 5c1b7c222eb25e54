import { nextCronTime, type SessionSchedule, type SessionScheduler } from './session-schedule.js';

/**
 * Schedules in this process's memory, on timers (`AgentSessions`' default): for one process and
 * tests. They are lost when the process ends; across processes use `BullMQSessionScheduler`.
 *
 * @example
 * ```ts
 * const sessions = new AgentSessions({ agent, scheduler: new InMemorySessionScheduler() });
 * await sessions.schedule('s1', { every: 60_000, message: 'Anything new?' });
 * ```
 */
export class InMemorySessionScheduler implements SessionScheduler {
  private readonly schedules = new Map<string, { schedule: SessionSchedule; timer?: ReturnType<typeof setTimeout> }>();
  private fire: ((schedule: SessionSchedule) => Promise<void>) | undefined;
  private closed = false;

  /** Adds (or replaces, by id) a schedule. */
  add(schedule: SessionSchedule): Promise<void> {
    this.clear(schedule.id);
    this.schedules.set(schedule.id, { schedule });
    this.arm(schedule.id);
    return Promise.resolve();
  }

  /** The schedules, of one session or all. */
  list(sessionId?: string): Promise<SessionSchedule[]> {
    const all = [...this.schedules.values()].map((e) => e.schedule);
    return Promise.resolve(sessionId === undefined ? all : all.filter((s) => s.sessionId === sessionId));
  }

  /** Removes a schedule; `false` when there was none with that id. */
  remove(id: string): Promise<boolean> {
    const had = this.schedules.has(id);
    this.clear(id);
    this.schedules.delete(id);
    return Promise.resolve(had);
  }

  /** Delivers the ticks this process runs to `fire` from now on. */
  start(fire: (schedule: SessionSchedule) => Promise<void>): void {
    this.fire = fire;
    for (const id of this.schedules.keys()) this.arm(id);
  }

  /** Stops every timer. */
  close(): Promise<void> {
    this.closed = true;
    for (const id of this.schedules.keys()) this.clear(id);
    return Promise.resolve();
  }

  /** Sets the timer of the schedule's next tick; each tick sets the following one. */
  private arm(id: string): void {
    const entry = this.schedules.get(id);
    if (!entry || !this.fire || this.closed || entry.timer) return;
    const now = Date.now();
    const due = entry.schedule.every !== undefined ? now + entry.schedule.every : nextCronTime(entry.schedule, now);
    // setTimeout holds at most ~24.8 days: a later tick re-arms on the way.
    const delay = Math.min(Math.max(0, due - now), 2 ** 31 - 1);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (this.schedules.get(id) !== entry || this.closed) return;
      if (Date.now() >= due - 5) void this.fire!(entry.schedule);
      this.arm(id);
    }, delay);
  }

  private clear(id: string): void {
    const entry = this.schedules.get(id);
    if (entry?.timer) clearTimeout(entry.timer);
    if (entry) entry.timer = undefined;
  }
}
