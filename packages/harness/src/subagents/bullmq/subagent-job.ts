import type { SubagentTaskRequest } from '../subagent-task-queue.js';

/**
 * The queue background subagents are enqueued on when no name is given.
 *
 * @example
 * ```ts
 * const waiting = await new Queue(DEFAULT_SUBAGENT_QUEUE, { connection }).getWaitingCount();
 * ```
 */
export const DEFAULT_SUBAGENT_QUEUE = 'rxscope-subagents';

/**
 * What a subagent job carries: the {@link SubagentTaskRequest} (its job id is the task id).
 *
 * @example
 * ```ts
 * const job = await subagentJobs.queue.getJob('task_1');
 * const data: SubagentJobData | undefined = job?.data; // { taskId, sessionId, parent, name?, task, permissions? }
 * ```
 */
export type SubagentJobData = SubagentTaskRequest;

/**
 * What a subagent job resolves with: the subagent's report (also delivered to the inbox).
 *
 * @example
 * ```ts
 * const { report }: SubagentJobResult = (await subagentJobs.queue.getJob('task_1'))!.returnvalue;
 * ```
 */
export interface SubagentJobResult {
  /** The subagent's final answer. */
  readonly report: string;
}

/** A cancelled task's record (the job itself may have been removed), kept on the bus's `task-cancelled:<taskId>` log. */
export interface CancelledTask {
  readonly sessionId: string;
  readonly name: string;
  readonly reason: string;
  readonly startedAt: number;
  readonly endedAt: number;
}

/** The bus channel on which a queue asks every worker to abort a running task. */
export function cancelChannelOf(queueName: string): string {
  return `subagent-jobs:${queueName}:cancel`;
}

/** The bus queue of messages for a task (`agent_send`), drained by the worker that runs it. */
export function taskInboxOf(taskId: string): string {
  return `task-inbox:${taskId}`;
}

/** The bus log holding a cancelled task's {@link CancelledTask} record. */
export function cancelledLogOf(taskId: string): string {
  return `task-cancelled:${taskId}`;
}

/** What a worker hears on the cancel channel. */
export interface CancelSignal {
  readonly taskId: string;
  readonly reason: string;
}
