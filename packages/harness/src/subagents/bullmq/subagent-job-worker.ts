import { type Agent, type AgentEvent, type ToolContext, type ToolOutput, optionKeys } from '@rxscope/core';
import { type ConnectionOptions, DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import { concatMap, defer, from, map, type ObservableInput, toArray } from 'rxjs';
import type { MessageBus } from '../../bus/index.js';
import { pushToInbox } from '../../inbox/index.js';
import { SubagentsMiddleware } from '../subagents-middleware/index.js';
import { type TaskEvent, taskResultMessage } from '../../tasks/index.js';
import {
  type CancelSignal,
  cancelChannelOf,
  cancelledLogOf,
  DEFAULT_SUBAGENT_QUEUE,
  type SubagentJobData,
  type SubagentJobResult,
  taskInboxOf,
} from './subagent-job.js';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/**
 * Options of {@link SubagentJobWorker}.
 *
 * @example
 * ```ts
 * const options: SubagentJobWorkerOptions = { connection: redis, bus, agent: buildAgent, concurrency: 4, lockDuration: 30_000 };
 * ```
 */
export interface SubagentJobWorkerOptions {
  /** BullMQ's connection: ioredis options or an ioredis client (with `maxRetriesPerRequest: null`). */
  readonly connection: ConnectionOptions;
  /**
   * The session's agent, built as for its replies (the same factory as a `ReplyWorker`'s): its
   * `SubagentsMiddleware` (workspace, models, middlewares), model and tools make the subagent,
   * as `agent_spawn` would in the spawning process. Only built, never run.
   */
  readonly agent: (sessionId: string) => Agent | Promise<Agent>;
  /** The message bus of the sessions' inboxes (a `RedisMessageBus`): reports, task events, cancellations. */
  readonly bus: MessageBus;
  /** The queue's name (the {@link SubagentJobQueue} uses the same). Default `'rxscope-subagents'`. */
  readonly name?: string;
  /** BullMQ's key prefix. Default BullMQ's. */
  readonly prefix?: string;
  /** Subagents this worker runs at once. Default 1. */
  readonly concurrency?: number;
  /** How long a job's lock lasts without renewal (ms, default 30,000); see `ReplyWorker`. */
  readonly lockDuration?: number;
  /** How often this worker checks for stalled jobs (ms, default 30,000). */
  readonly stalledInterval?: number;
  /** How many times a job may stall (its worker dying) before it fails for good. Default 1. */
  readonly maxStalledCount?: number;
  /** Reports longer than this are cut (head and tail kept) in the inbox message. Default 20,000. */
  readonly maxResultChars?: number;
  /** Failures with no caller to report to (a report that could not be delivered). Default `console.error`. */
  readonly onError?: (error: unknown, what: string) => void;
}

/**
 * Options of {@link SubagentJobWorker.shutdown}.
 *
 * @example
 * ```ts
 * await worker.shutdown({ graceMs: 5_000, reason: 'received SIGTERM' });
 * ```
 */
export interface SubagentWorkerShutdownOptions {
  /** How long running tasks may take to finish before they are stopped and put back (ms). Default 10,000. */
  readonly graceMs?: number;
  /** Why, for the logs of the tasks put back. Default `'the worker is shutting down'`. */
  readonly reason?: string;
}

/**
 * What {@link SubagentJobWorker.shutdown} did with the tasks that were running.
 *
 * @example
 * ```ts
 * const { finished, requeued } = await worker.shutdown(); // e.g. { finished: 2, requeued: 1 }
 * ```
 */
export interface SubagentWorkerShutdownReport {
  /** Tasks that ended within the grace period (reported, failed or cancelled as usual). */
  readonly finished: number;
  /** Tasks stopped at the end of the grace period and put back on the queue for another worker. */
  readonly requeued: number;
}

/** A task this worker runs: its abort, whether a shutdown puts it back, and how it ended. */
interface RunningTask {
  readonly controller: AbortController;
  requeue: boolean;
  readonly ended: Promise<'finished' | 'requeued'>;
}

// Every option, typed against SubagentJobWorkerOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<SubagentJobWorkerOptions>({
  connection: true,
  agent: true,
  bus: true,
  name: true,
  prefix: true,
  concurrency: true,
  lockDuration: true,
  stalledInterval: true,
  maxStalledCount: true,
  maxResultChars: true,
  onError: true,
});

/**
 * Runs the background subagents enqueued by a {@link SubagentJobQueue}: for each job, the
 * session's agent built by `agent(sessionId)`, the subagent its `SubagentsMiddleware` makes for
 * the task, run to its final answer; the subagent's events are published on the bus
 * (`BackgroundTasks.events(sessionId)` hears them in any process) and its report is pushed to the
 * session's inbox, so it reaches the session's running reply (on whichever process) or its next
 * one. Messages sent with `agent_send` reach the subagent before its next step; a task cancelled
 * with `task_cancel` is aborted and reports nothing. When a worker dies mid-task, BullMQ's
 * stalled-job recovery runs the task again, from its start, on another worker.
 *
 * @example
 * ```ts
 * import { SubagentJobWorker } from '@rxscope/harness/bullmq';
 * const worker = new SubagentJobWorker({
 *   connection: new Redis(url, { maxRetriesPerRequest: null }),
 *   bus: new RedisMessageBus({ redis: new Redis(url) }),
 *   agent: (sessionId) => createHarnessAgent({ model, workspace, sessionId, store, bus }),
 *   concurrency: 4,
 * });
 * process.once('SIGTERM', () => void worker.shutdown({ graceMs: 10_000 }));
 * ```
 */
export class SubagentJobWorker {
  /** The BullMQ worker (for its events and API). */
  readonly worker: Worker<SubagentJobData, SubagentJobResult>;
  private readonly bus: MessageBus;
  private readonly onError: (error: unknown, what: string) => void;
  private readonly cancels: { unsubscribe(): void };
  private readonly running = new Map<string, RunningTask>();
  /** Set by shutdown(): why this worker takes no new task. */
  private closing: string | undefined;

  constructor(private readonly options: SubagentJobWorkerOptions) {
    refuseUnknownOptions('SubagentJobWorker', options, OPTION_KEYS);
    if (!options?.bus || typeof options.bus.push !== 'function')
      throw new HarnessOptionError(
        'invalid_option',
        'SubagentJobWorker.bus',
        'SubagentJobWorker needs the message bus of the inboxes (options.bus).',
      );
    if (typeof options.agent !== 'function')
      throw new HarnessOptionError(
        'invalid_option',
        'SubagentJobWorker.agent',
        'SubagentJobWorker needs the agent factory (options.agent: (sessionId) => Agent).',
      );
    this.bus = options.bus;
    this.onError = options.onError ?? ((error, what) => console.error(`[rxscope] ${what}:`, error));
    const name = options.name ?? DEFAULT_SUBAGENT_QUEUE;
    this.worker = new Worker<SubagentJobData, SubagentJobResult>(
      name,
      (job, token, signal) => this.run(job, token, signal),
      {
        connection: options.connection,
        concurrency: options.concurrency ?? 1,
        ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
        ...(options.lockDuration !== undefined ? { lockDuration: options.lockDuration } : {}),
        ...(options.stalledInterval !== undefined ? { stalledInterval: options.stalledInterval } : {}),
        ...(options.maxStalledCount !== undefined ? { maxStalledCount: options.maxStalledCount } : {}),
      },
    );
    this.worker.on('error', (error) => this.onError(error, 'the subagent worker'));
    // BullMQ cancels only the jobs of its own process: a cancellation from anywhere comes over the bus.
    this.cancels = this.bus.subscribe<CancelSignal>(cancelChannelOf(name)).subscribe({
      next: ({ taskId, reason }) => void this.worker.cancelJob(taskId, reason),
      error: (error: unknown) => this.onError(error, 'the subagent worker stopped hearing cancellations'),
    });
  }

  /** Closes the worker after its running tasks finish (BullMQ's `close()`; `force` leaves them to stalled recovery). */
  async close(force = false): Promise<void> {
    this.cancels.unsubscribe();
    await this.worker.close(force);
  }

  /**
   * Stops the worker gracefully (its process is going down): it takes no new task; running
   * tasks have `graceMs` to finish and report as usual; a task still running then is stopped
   * and put back on the queue without using an attempt, so another worker runs it from its
   * start and reports once (messages `agent_send` delivered to the stopped run are not sent
   * again). Resolves once the worker is closed.
   *
   * @example
   * ```ts
   * process.once('SIGTERM', async () => {
   *   const { requeued } = await worker.shutdown({ graceMs: 10_000, reason: 'received SIGTERM' });
   *   process.exit(0); // the requeued tasks run on the other workers
   * });
   * ```
   */
  async shutdown(options: SubagentWorkerShutdownOptions = {}): Promise<SubagentWorkerShutdownReport> {
    const reason = (this.closing ??= options.reason ?? 'the worker is shutting down');
    const pausing = this.worker.pause(true); // no new job; the running ones go on
    // Every task is tracked from the first line of run(): these are all the tasks there are.
    const tasks = [...this.running.values()];
    const ends = Promise.all(tasks.map((t) => t.ended));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, options.graceMs ?? 10_000)));
    await Promise.race([ends, graceOver]);
    clearTimeout(timer);
    for (const task of this.running.values()) {
      task.requeue = true;
      task.controller.abort(new Error(`the worker is shutting down (${reason})`));
    }
    const outcomes = await ends;
    await pausing;
    await this.close();
    const requeued = outcomes.filter((o) => o === 'requeued').length;
    return { finished: outcomes.length - requeued, requeued };
  }

  private async run(
    job: Job<SubagentJobData, SubagentJobResult>,
    token: string | undefined,
    signal?: AbortSignal,
  ): Promise<SubagentJobResult> {
    // Fetched while the worker was pausing for a shutdown: back to the queue, attempt unused.
    if (this.closing !== undefined) return this.putBack(job, token);
    const taskId = job.data.taskId;
    let end!: (outcome: 'finished' | 'requeued') => void;
    const running: RunningTask = {
      controller: new AbortController(),
      requeue: false,
      ended: new Promise((r) => (end = r)),
    };
    this.running.set(taskId, running);
    try {
      return await this.runTask(job, token, signal, running.controller);
    } catch (error) {
      // Stopped by a shutdown (at any point, its setup included): another worker runs it from its start.
      if (running.requeue) {
        end('requeued');
        return this.putBack(job, token);
      }
      throw error;
    } finally {
      this.running.delete(taskId);
      end('finished'); // no effect when it was put back
    }
  }

  private async runTask(
    job: Job<SubagentJobData, SubagentJobResult>,
    token: string | undefined,
    signal: AbortSignal | undefined,
    controller: AbortController,
  ): Promise<SubagentJobResult> {
    const { sessionId, taskId, name, task, permissions } = job.data;
    const cancelled = await this.bus.read<{ reason: string }>(cancelledLogOf(taskId), { limit: 1 });
    if (cancelled.entries.length) throw new UnrecoverableError(`cancelled: ${cancelled.entries[0]!.message.reason}`);
    const parent = await this.options.agent(sessionId);
    const subagents = parent.middlewares.find((m): m is SubagentsMiddleware => m instanceof SubagentsMiddleware);
    if (!subagents) {
      throw new UnrecoverableError(
        `The agent built for session ${sessionId} has no SubagentsMiddleware: this worker cannot build its subagents.`,
      );
    }
    let sub: Agent;
    try {
      sub = await subagents.createSubagent(parent, name, permissions ? { permissions } : {});
    } catch (error) {
      await this.deliver(job, token, 'failed', error instanceof Error ? error.message : String(error), true);
      throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
    }
    const abort = () => controller.abort(signal?.reason ?? new Error('the task was cancelled'));
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    const messages = this.bus
      .pushed(taskInboxOf(taskId))
      .pipe(concatMap(() => this.bus.drain<string>(taskInboxOf(taskId))))
      .subscribe({
        next: (texts) => texts.forEach((text) => sub.send(text)),
        error: (error: unknown) => this.onError(error, `messages to task ${taskId} could not be read`),
      });
    const asTool = sub.asTool({ name: 'agent_spawn', description: sub.name });
    const taskCtx: ToolContext = {
      signal: controller.signal,
      callId: taskId,
      idempotencyKey: taskId,
      agentName: job.data.parent,
      replyId: taskId,
      emit: () => undefined,
      forward: (event: AgentEvent) =>
        void this.bus
          .publish<TaskEvent>(`tasks:${sessionId}`, { taskId, event })
          .catch((error: unknown) => this.onError(error, `an event of task ${taskId} could not be published`)),
    };
    let report: string;
    try {
      report = await new Promise<string>((resolve, reject) => {
        const subscription = defer(() =>
          from(asTool.execute!({ message: task }, taskCtx) as ObservableInput<ToolOutput>),
        )
          .pipe(
            toArray(),
            map((values) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('')),
          )
          .subscribe({ next: resolve, error: reject });
        const stop = () => {
          subscription.unsubscribe(); // ends the subagent's reply
          reject(new Error('cancelled'));
        };
        if (controller.signal.aborted) stop();
        else controller.signal.addEventListener('abort', stop, { once: true });
      });
    } catch (error) {
      if (controller.signal.aborted) throw new UnrecoverableError(`cancelled: ${reasonOf(controller.signal)}`);
      const message = error instanceof Error ? error.message : String(error);
      await this.deliver(job, token, 'failed', message, false);
      throw error;
    } finally {
      messages.unsubscribe();
      signal?.removeEventListener('abort', abort);
    }
    if (controller.signal.aborted) throw new UnrecoverableError(`cancelled: ${reasonOf(controller.signal)}`);
    await this.deliver(job, token, 'completed', report, true);
    return { report };
  }

  /** Puts the job back on the queue for another worker, without using an attempt (BullMQ's way: moveToDelayed, then DelayedError). */
  private async putBack(job: Job<SubagentJobData, SubagentJobResult>, token: string | undefined): Promise<never> {
    await job.moveToDelayed(Date.now(), token);
    throw new DelayedError();
  }

  /**
   * Pushes the report (or the failure of the last attempt) to the session's inbox, unless this
   * worker lost the job meanwhile (its lock expired and the job went to another worker, which
   * reports instead).
   */
  private async deliver(
    job: Job<SubagentJobData, SubagentJobResult>,
    token: string | undefined,
    status: 'completed' | 'failed',
    result: string,
    final: boolean,
  ): Promise<void> {
    if (status === 'failed' && !final && job.attemptsMade + 1 < (job.opts.attempts ?? 1)) return; // retried
    const { sessionId, taskId, name } = job.data;
    if (token !== undefined && (await job.extendLock(token, this.worker.opts.lockDuration ?? 30_000)) !== 1) {
      const lost = new Error(
        `task ${taskId} was taken over by another worker (this one lost its lock); it reports from there`,
      );
      this.onError(lost, `a late attempt of task ${taskId} reports nothing`);
      throw lost;
    }
    const message = taskResultMessage(
      { id: taskId, kind: 'subagent', name: name ?? 'general-purpose' },
      status,
      result,
      this.options.maxResultChars,
    );
    try {
      await pushToInbox(this.bus, sessionId, message);
    } catch (error) {
      this.onError(error, `the report of task ${taskId} could not be delivered to session ${sessionId}`);
      throw error; // the job fails (and is retried when it has attempts left): the report is not lost silently
    }
  }
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'cancelled';
}
