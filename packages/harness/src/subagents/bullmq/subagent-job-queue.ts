import { type ConnectionOptions, type JobsOptions, Queue } from 'bullmq';
import type { MessageBus } from '../../bus/index.js';
import { GENERAL_PURPOSE } from '../subagent-definition.js';
import type { SubagentTaskQueue, SubagentTaskRequest } from '../subagent-task-queue.js';
import type { TaskInfo } from '../../tasks/index.js';
import {
  type CancelledTask,
  type CancelSignal,
  cancelChannelOf,
  cancelledLogOf,
  DEFAULT_SUBAGENT_QUEUE,
  type SubagentJobData,
  type SubagentJobResult,
  taskInboxOf,
} from './subagent-job.js';
import { optionKeys } from '@rxscope/core';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/**
 * Options of {@link SubagentJobQueue}.
 *
 * @example
 * ```ts
 * const options: SubagentJobQueueOptions = { connection: redis, bus, defaultJobOptions: { removeOnComplete: { age: 86_400 } } };
 * ```
 */
export interface SubagentJobQueueOptions {
  /** BullMQ's connection: ioredis options (`{host, port}`) or an ioredis client. */
  readonly connection: ConnectionOptions;
  /** The message bus the workers use (a `RedisMessageBus`): cancellations and `agent_send` messages go through it. */
  readonly bus: MessageBus;
  /** The queue's name; the workers must use the same. Default `'rxscope-subagents'`. */
  readonly name?: string;
  /** BullMQ's key prefix. Default BullMQ's (`'bull'`). */
  readonly prefix?: string;
  /** Options of every job (`attempts`, `backoff`, `removeOnComplete: {age}`...). */
  readonly defaultJobOptions?: JobsOptions;
}

// Every option, typed against SubagentJobQueueOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<SubagentJobQueueOptions>({
  connection: true,
  bus: true,
  name: true,
  prefix: true,
  defaultJobOptions: true,
});

/**
 * Background subagents as BullMQ jobs on Redis: give it to `SubagentsMiddleware` (`taskQueue`)
 * and `agent_spawn {background: true}` enqueues a job (its id is the task id) that a
 * {@link SubagentJobWorker} in any process runs, the report arriving in the session's inbox
 * through the message bus. BullMQ's stalled-job recovery runs the task again on another worker
 * when its worker dies; its `concurrency` bounds the subagents a worker runs at once.
 *
 * The task tools work from any process: `task_output` reads the job's state (`queued` while it
 * waits, then `running`, `completed` with the report, `failed` with the reason); `task_cancel`
 * removes a waiting job, or asks the worker running it to abort it (over the bus: BullMQ
 * cancels only jobs of its own process), and a cancelled task delivers nothing; `agent_send`
 * queues a message that the worker hands to the subagent before its next step.
 *
 * @example
 * ```ts
 * import { SubagentJobQueue } from '@rxscope/harness/bullmq';
 * const taskQueue = new SubagentJobQueue({ connection: new Redis(url, { maxRetriesPerRequest: null }), bus });
 * const agent = createHarnessAgent({ model, workspace, sessionId, store, bus, subagents: { taskQueue } });
 * ```
 */
export class SubagentJobQueue implements SubagentTaskQueue {
  /** The BullMQ queue (for its own API: counts, pausing, cleaning). */
  readonly queue: Queue<SubagentJobData, SubagentJobResult>;
  private readonly bus: MessageBus;

  constructor(options: SubagentJobQueueOptions) {
    refuseUnknownOptions('SubagentJobQueue', options, OPTION_KEYS);
    if (!options?.bus || typeof options.bus.publish !== 'function')
      throw new HarnessOptionError(
        'invalid_option',
        'SubagentJobQueue.bus',
        'SubagentJobQueue needs the message bus its workers use (options.bus).',
      );
    this.bus = options.bus;
    this.queue = new Queue<SubagentJobData, SubagentJobResult>(options.name ?? DEFAULT_SUBAGENT_QUEUE, {
      connection: options.connection,
      ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
      ...(options.defaultJobOptions ? { defaultJobOptions: options.defaultJobOptions } : {}),
    });
  }

  /** Adds the task as a job whose id is the task id. */
  async enqueue(request: SubagentTaskRequest): Promise<void> {
    await this.queue.add('subagent', request, { jobId: request.taskId });
  }

  /** The job's state as a task: `queued` (waiting, also again after its worker died), `running`, `completed` with the report, `failed`, or `cancelled`. */
  async get(sessionId: string, taskId: string): Promise<TaskInfo | undefined> {
    // The state first: a job completing between the two reads then shows as running, never as
    // completed without its report.
    const state = await this.queue.getJobState(taskId);
    const job = await this.queue.getJob(taskId);
    const cancelled = await this.cancelled(taskId);
    if (cancelled) {
      if (cancelled.sessionId !== sessionId) return undefined;
      return {
        id: taskId,
        sessionId,
        kind: 'subagent',
        name: cancelled.name,
        status: 'cancelled',
        startedAt: cancelled.startedAt,
        endedAt: cancelled.endedAt,
        result: cancelled.reason,
      };
    }
    if (!job || job.data.sessionId !== sessionId) return undefined;
    const base = {
      id: taskId,
      sessionId,
      kind: 'subagent' as const,
      name: job.data.name ?? GENERAL_PURPOSE.name,
      startedAt: job.timestamp,
    };
    switch (state) {
      case 'active':
        return { ...base, status: 'running' };
      case 'completed':
        return { ...base, status: 'completed', endedAt: job.finishedOn ?? Date.now(), result: job.returnvalue?.report };
      case 'failed':
        return { ...base, status: 'failed', endedAt: job.finishedOn ?? Date.now(), result: job.failedReason };
      default: // waiting, delayed, prioritized (again after its worker died), or just added
        return { ...base, status: 'queued' };
    }
  }

  /** Records the cancellation, removes the job if it waits, and asks every worker to abort it if it runs. */
  async cancel(sessionId: string, taskId: string, reason: string): Promise<boolean> {
    const info = await this.get(sessionId, taskId);
    if (!info || (info.status !== 'queued' && info.status !== 'running')) return false;
    // The record first: a worker taking the job from now on sees it and runs nothing.
    const record: CancelledTask = {
      sessionId,
      name: info.name,
      reason,
      startedAt: info.startedAt,
      endedAt: Date.now(),
    };
    await this.bus.append(cancelledLogOf(taskId), record);
    const job = await this.queue.getJob(taskId);
    try {
      await job?.remove(); // a waiting job is gone; a running one is locked (throws)
    } catch {
      // running: its worker aborts it on the signal below
    }
    await this.bus.publish<CancelSignal>(cancelChannelOf(this.queue.name), { taskId, reason });
    return true;
  }

  /** Queues a message on the bus for the worker that runs (or will run) the task. */
  async send(sessionId: string, taskId: string, message: string): Promise<string | undefined> {
    const info = await this.get(sessionId, taskId);
    if (!info) return `There is no task "${taskId}".`;
    if (info.status !== 'queued' && info.status !== 'running')
      return `Task ${taskId} has ended (${info.status}); it takes no more messages.`;
    await this.bus.push(taskInboxOf(taskId), message);
    return undefined;
  }

  /** Closes the queue's connections (a client you passed is BullMQ's to close: see its docs). */
  async close(): Promise<void> {
    await this.queue.close();
  }

  private async cancelled(taskId: string): Promise<CancelledTask | undefined> {
    const page = await this.bus.read<CancelledTask>(cancelledLogOf(taskId), { limit: 1 });
    return page.entries[0]?.message;
  }
}
