import { type ConnectionOptions, Queue, Worker } from 'bullmq';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';
import type { SessionSchedule, SessionScheduler } from '../sessions/schedules/session-schedule.js';

/**
 * The queue schedules tick on when no name is given.
 *
 * @example
 * ```ts
 * new Queue(DEFAULT_SCHEDULE_QUEUE, { connection }).getJobSchedulers(); // what BullMQSessionScheduler keeps
 * ```
 */
export const DEFAULT_SCHEDULE_QUEUE = 'rxscope-schedules';

/**
 * Options of {@link BullMQSessionScheduler}.
 *
 * @example
 * ```ts
 * new BullMQSessionScheduler({ connection: new Redis(url, { maxRetriesPerRequest: null }), concurrency: 8 });
 * ```
 */
export interface BullMQSessionSchedulerOptions {
  /** BullMQ's connection: ioredis options (`{host, port}`) or an ioredis client (`maxRetriesPerRequest: null`). */
  readonly connection: ConnectionOptions;
  /** The queue's name; every process of the service uses the same. Default `'rxscope-schedules'`. */
  readonly name?: string;
  /** BullMQ's key prefix. Default BullMQ's (`'bull'`). */
  readonly prefix?: string;
  /** Ticks this process runs at once. Default 4. */
  readonly concurrency?: number;
  /** The worker's connection failures (it reconnects by itself). Default: `console.error`. */
  readonly onError?: (error: unknown) => void;
}

const OPTION_KEYS = optionKeys<BullMQSessionSchedulerOptions>({
  connection: true,
  name: true,
  prefix: true,
  concurrency: true,
  onError: true,
});

/**
 * Session schedules on BullMQ job schedulers (`upsertJobScheduler`) in Redis: a schedule made in
 * one process is listed and cancelled from any other, survives restarts, and each of its ticks
 * is a job that exactly one process takes (its `AgentSessions` wakes the session with the
 * schedule's message). Cron expressions are read by the same parser (`cron-parser`) as
 * `sessions.schedule()` checks them with.
 *
 * @example
 * ```ts
 * import { BullMQSessionScheduler } from '@rxscope/core/node/bullmq';
 * const sessions = new AgentSessions({ agent, bus, scheduler: new BullMQSessionScheduler({ connection: redis }) });
 * await sessions.schedule('ops', { cron: '*\/15 * * * *', message: 'Check the queue depth.' });
 * ```
 */
export class BullMQSessionScheduler implements SessionScheduler {
  /** The BullMQ queue of the ticks (for its own API). */
  readonly queue: Queue<SessionSchedule>;
  private worker: Worker<SessionSchedule> | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: BullMQSessionSchedulerOptions) {
    checkOptionKeys('BullMQSessionScheduler', options, OPTION_KEYS, {
      foreign: { redis: 'connection', queueName: 'name' },
    });
    this.queue = new Queue<SessionSchedule>(options.name ?? DEFAULT_SCHEDULE_QUEUE, {
      connection: options.connection,
      ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
    });
  }

  /** Adds (or replaces, by id) a schedule. */
  async add(schedule: SessionSchedule): Promise<void> {
    const repeat =
      schedule.every !== undefined
        ? { every: schedule.every }
        : { pattern: schedule.cron!, ...(schedule.tz ? { tz: schedule.tz } : {}) };
    // Ticks are not kept once run: a schedule is a trigger, the reply is on the session's event bus.
    await this.queue.upsertJobScheduler(schedule.id, repeat, {
      name: 'tick',
      data: schedule,
      opts: { removeOnComplete: true, removeOnFail: 100 },
    });
  }

  /** The schedules, of one session or all. */
  async list(sessionId?: string): Promise<SessionSchedule[]> {
    const all = await this.queue.getJobSchedulers(0, -1, true);
    return all
      .map((s) => s.template?.data)
      .filter((s): s is SessionSchedule => s !== undefined && (sessionId === undefined || s.sessionId === sessionId));
  }

  /** Removes a schedule; `false` when there was none with that id. */
  remove(id: string): Promise<boolean> {
    return this.queue.removeJobScheduler(id);
  }

  /** Delivers the ticks this process runs to `fire` from now on. */
  start(fire: (schedule: SessionSchedule) => Promise<void>): void {
    this.worker ??= new Worker<SessionSchedule>(this.queue.name, (job) => fire(job.data), {
      connection: this.options.connection,
      concurrency: this.options.concurrency ?? 4,
      ...(this.options.prefix !== undefined ? { prefix: this.options.prefix } : {}),
    });
    const onError = this.options.onError ?? ((e: unknown) => console.error('[rxscope] schedule worker:', e));
    this.worker.on('error', onError);
  }

  /** Stops taking ticks here (other processes go on) and closes the queue; schedules stay in Redis. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.worker?.close();
      await this.queue.close();
    })();
    return this.closing;
  }
}
