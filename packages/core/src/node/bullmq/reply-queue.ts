import { randomUUID } from 'node:crypto';
import { type ConnectionOptions, type Job, type JobsOptions, Queue, QueueEvents } from 'bullmq';
import type { ReplyInput } from '../../agent/agent-options.js';
import { DEFAULT_REPLY_QUEUE, type ReplyJobData, type ReplyJobResult } from './reply-job.js';
import { SessionTurns } from './session-turns.js';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';

/** Options of {@link ReplyQueue}. */
export interface ReplyQueueOptions {
  /** BullMQ's connection: ioredis options (`{host, port}`) or an ioredis client. */
  readonly connection: ConnectionOptions;
  /** The queue's name; the workers must use the same. Default `'rxscope-replies'`. */
  readonly name?: string;
  /** BullMQ's key prefix. Default BullMQ's (`'bull'`). */
  readonly prefix?: string;
  /** Options of every job (`attempts`, `backoff`, `removeOnComplete`...), merged under each `enqueue`'s. */
  readonly defaultJobOptions?: JobsOptions;
}

// Every option, typed against ReplyQueueOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<ReplyQueueOptions>({
  connection: true,
  name: true,
  prefix: true,
  defaultJobOptions: true,
});

/**
 * The producer side of distributed replies: enqueues a session's reply as a BullMQ job that a
 * {@link ReplyWorker} (in this process or another one on the same Redis) runs, its events going
 * to the session event bus. An HTTP front enqueues and streams the session's events from the
 * bus; it never runs the agent.
 *
 * @example
 * ```ts
 * const replies = new ReplyQueue({ connection: { host: 'localhost', port: 6379 } });
 * const job = await replies.enqueue('orders-42', 'Refund order B-2');
 * bus.events('orders-42').subscribe(send);                   // the reply, from whichever worker runs it
 * const { finishReason } = await replies.result(job);        // 'completed', 'awaiting_confirmation'...
 * await replies.enqueue('orders-42', { type: 'USER_CONFIRM_RESULT', results });
 * ```
 */
export class ReplyQueue {
  /** The BullMQ queue (for its own API: counts, pausing, cleaning). */
  readonly queue: Queue<ReplyJobData, ReplyJobResult>;
  private events: QueueEvents | undefined;
  private readonly turns: SessionTurns;

  constructor(private readonly options: ReplyQueueOptions) {
    checkOptionKeys('ReplyQueue', options, OPTION_KEYS, { foreign: { redis: 'connection', queueName: 'name' } });
    this.queue = new Queue<ReplyJobData, ReplyJobResult>(options.name ?? DEFAULT_REPLY_QUEUE, {
      connection: options.connection,
      ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
      ...(options.defaultJobOptions ? { defaultJobOptions: options.defaultJobOptions } : {}),
    });
    this.turns = new SessionTurns(() => this.queue.getBackend().client, this.queue.toKey('rxscope-turns'));
  }

  /**
   * Enqueues a reply of the session (a message, a confirmation's answer, or `{type:
   * 'RESUME_REPLY'}`); resolves with the job once it is in Redis. The input must be JSON. The
   * job takes the session's next turn: workers run a session's replies one at a time, in the
   * order they were enqueued (from any number of producers).
   */
  async enqueue(
    sessionId: string,
    input: ReplyInput,
    options: JobsOptions = {},
  ): Promise<Job<ReplyJobData, ReplyJobResult>> {
    // The id is known before the job is added, so the turn names it; word characters only (it goes into URLs).
    const jobId = options.jobId ?? `reply_${randomUUID().replaceAll('-', '')}`;
    const turn = await this.turns.take(sessionId, jobId);
    return this.queue.add('reply', { sessionId, input, turn }, { ...options, jobId });
  }

  /**
   * Waits for the job to finish and resolves with its {@link ReplyJobResult}; rejects with the
   * job's failure (an input the agent refused, a worker that failed it for good).
   */
  async result(job: Job<ReplyJobData, ReplyJobResult>, timeoutMs?: number): Promise<ReplyJobResult> {
    if (!this.events) {
      this.events = new QueueEvents(this.queue.name, {
        connection: this.options.connection,
        ...(this.options.prefix !== undefined ? { prefix: this.options.prefix } : {}),
      });
      await this.events.waitUntilReady();
    }
    // BullMQ's event listener starts reading at the stream's end only with its first read: a job
    // finishing just before it would be missed. A slow poll of the job's state covers that window.
    let settled = false;
    const polled = (async (): Promise<ReplyJobResult> => {
      for (;;) {
        await new Promise((r) => setTimeout(r, 500));
        if (settled) return new Promise<never>(() => undefined);
        const current = await this.queue.getJob(job.id!);
        if (current?.finishedOn !== undefined) {
          if (current.failedReason) throw new Error(current.failedReason);
          return current.returnvalue;
        }
      }
    })();
    try {
      return await Promise.race([job.waitUntilFinished(this.events, timeoutMs), polled]);
    } finally {
      settled = true;
    }
  }

  /** Closes the queue's connections (a client you passed is BullMQ's to close: see its docs). */
  async close(): Promise<void> {
    await this.events?.close();
    await this.queue.close();
  }
}
