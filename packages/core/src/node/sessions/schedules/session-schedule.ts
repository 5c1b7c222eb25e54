import { CronExpressionParser } from 'cron-parser';
import { AgentUsageError } from '../../../agent/errors.js';
import { refuseUnknownOptionKeys } from '../../../agent/known-keys.js';
import { newId } from '../../../util/id.js';

/**
 * Options of `sessions.schedule()`: when (`every` milliseconds, or a `cron` expression in `tz`;
 * exactly one) and what the session's agent receives each time (`message`, a user message).
 *
 * @example
 * ```ts
 * await sessions.schedule('ops', { cron: '0 9 * * 1-5', tz: 'Europe/Berlin', message: 'Post the daily summary.' });
 * await sessions.schedule('ops', { every: 15 * 60_000, message: 'Check the queue depth.' });
 * ```
 */
export interface SessionScheduleOptions {
  /** Every this many milliseconds (at least 100). */
  readonly every?: number;
  /** A cron expression (5 fields, or 6 with seconds first), as BullMQ's job schedulers read it. */
  readonly cron?: string;
  /** The time zone of `cron` (IANA name). Default: the process's. */
  readonly tz?: string;
  /** What the session's agent receives at each tick, as a user message (at most 100,000 characters). */
  readonly message: string;
  /** The schedule's id; scheduling an id again replaces that schedule. Default: a new `schedule_...` id. */
  readonly id?: string;
}

/**
 * A schedule of a session, as `sessions.schedules()` lists it.
 *
 * @example
 * ```ts
 * for (const s of await sessions.schedules('ops')) console.log(s.id, s.cron ?? `${s.every} ms`, s.message);
 * ```
 */
export interface SessionSchedule {
  /** Cancels it (`sessions.cancelSchedule(id)`). */
  readonly id: string;
  /** The session it wakes. */
  readonly sessionId: string;
  /** Every this many milliseconds, or: */
  readonly every?: number;
  /** on this cron expression, */
  readonly cron?: string;
  /** in this time zone. */
  readonly tz?: string;
  /** What the session's agent receives at each tick. */
  readonly message: string;
}

/**
 * Where schedules live and what fires them: {@link InMemorySessionScheduler} (one process, the
 * default of `AgentSessions`) or `BullMQSessionScheduler` (`@rxscope/core/node/bullmq`: BullMQ
 * job schedulers in Redis, each tick run by exactly one process).
 *
 * @example
 * ```ts
 * const sessions = new AgentSessions({ agent, scheduler: new InMemorySessionScheduler() });
 * ```
 */
export interface SessionScheduler {
  /** Adds (or replaces, by id) a validated schedule. */
  add(schedule: SessionSchedule): Promise<void>;
  /** The schedules, of one session or all, by id. */
  list(sessionId?: string): Promise<SessionSchedule[]>;
  /** Removes a schedule; resolves `false` when there was none with that id. */
  remove(id: string): Promise<boolean>;
  /** Delivers the ticks this process runs to `fire` from now on (called once, by `AgentSessions`). */
  start(fire: (schedule: SessionSchedule) => Promise<void>): void;
  /** Stops firing and releases timers and connections. */
  close(): Promise<void>;
}

/**
 * A schedule refused by `sessions.schedule()` (code `invalid_schedule`): an invalid cron
 * expression or time zone, an `every` below 100 ms, neither or both, no message.
 *
 * @example
 * ```ts
 * await sessions.schedule('s1', { cron: '61 * * * *', message: 'x' }).catch((e) => e instanceof InvalidScheduleError);
 * ```
 */
export class InvalidScheduleError extends AgentUsageError {
  override readonly name = 'InvalidScheduleError';
  override readonly code = 'invalid_schedule';
}

const MAX_MESSAGE = 100_000;

/** Checks `sessions.schedule()`'s options (a cron with the parser BullMQ uses) and makes the schedule. */
export function checkSchedule(sessionId: string, options: SessionScheduleOptions): SessionSchedule {
  refuseUnknownOptionKeys('sessions.schedule()', options, ['every', 'cron', 'tz', 'message', 'id']);
  const fail = (why: string) => new InvalidScheduleError(`sessions.schedule("${sessionId.slice(0, 200)}"): ${why}`);
  const { every, cron, tz, message, id } = options;
  if (typeof sessionId !== 'string' || !sessionId) throw fail('the session id must be a non-empty string.');
  if ((every === undefined) === (cron === undefined))
    throw fail('give exactly one of { every: milliseconds } and { cron: expression }.');
  if (every !== undefined && !(Number.isInteger(every) && every >= 100))
    throw fail(`every must be a whole number of milliseconds, at least 100; got ${JSON.stringify(every)}.`);
  if (tz !== undefined && cron === undefined) throw fail('tz applies to a cron expression only.');
  if (cron !== undefined) checkCron(cron, tz, fail);
  if (typeof message !== 'string' || !message.trim() || message.length > MAX_MESSAGE)
    throw fail(`message must be a non-empty string of at most ${MAX_MESSAGE} characters.`);
  if (id !== undefined && (typeof id !== 'string' || !/^[\w.:-]{1,128}$/.test(id)))
    throw fail(`id must be 1 to 128 letters, digits or _ . : -; got ${JSON.stringify(id).slice(0, 140)}.`);
  return {
    id: id ?? newId('schedule'),
    sessionId,
    ...(every !== undefined ? { every } : { cron: cron!.trim() }),
    ...(tz !== undefined ? { tz } : {}),
    message,
  };
}

function checkCron(cron: unknown, tz: unknown, fail: (why: string) => Error): void {
  if (typeof cron !== 'string' || !cron.trim() || cron.length > 200)
    throw fail('cron must be a cron expression (a non-empty string of at most 200 characters).');
  if (tz !== undefined && (typeof tz !== 'string' || !tz)) throw fail('tz must be an IANA time zone name.');
  try {
    CronExpressionParser.parse(cron.trim(), { strict: false, ...(tz ? { tz } : {}) }).next();
  } catch (error) {
    throw fail(
      `invalid cron expression ${JSON.stringify(cron)}${tz ? ` in ${tz}` : ''}: ${(error as Error).message}. ` +
        "Five fields (minute hour day-of-month month day-of-week, e.g. '0 9 * * 1-5'), or six with seconds first.",
    );
  }
}

/** The next time (epoch ms) a cron schedule fires after `after`. */
export function nextCronTime(schedule: SessionSchedule, after: number): number {
  return CronExpressionParser.parse(schedule.cron!, {
    currentDate: new Date(after),
    ...(schedule.tz ? { tz: schedule.tz } : {}),
  })
    .next()
    .getTime();
}
