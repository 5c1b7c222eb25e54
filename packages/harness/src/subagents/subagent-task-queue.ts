import type { PermissionState } from '@rxscope/core';
import type { TaskInfo } from '../tasks/index.js';

/**
 * A background subagent task handed to a {@link SubagentTaskQueue}: everything a worker in
 * another process needs to build the subagent and run it (JSON, stored in Redis).
 *
 * @example
 * ```ts
 * const request: SubagentTaskRequest = { taskId: 'task_1', sessionId: 's1', parent: 'lead', name: 'reviewer', task: 'Review src/parser.ts.' };
 * ```
 */
export interface SubagentTaskRequest {
  /** The task's id (`task_...`), what the agent passes to `task_output`, `task_cancel` and `agent_send`. */
  readonly taskId: string;
  /** The session that spawned it: its report goes to this session's inbox. */
  readonly sessionId: string;
  /** The name of the agent that spawned it. */
  readonly parent: string;
  /** A declared subagent (`subagents/<name>.md`); absent for a general-purpose one. */
  readonly name?: string;
  /** The task, self-contained. */
  readonly task: string;
  /** The spawning agent's permission settings when it spawned (the subagent gets them). */
  readonly permissions?: PermissionState;
}

/**
 * Where `SubagentsMiddleware` sends background subagents instead of running them in its own
 * process (`taskQueue` option): a queue that any worker process with the same subagent
 * definitions runs, the report arriving in the session's inbox through the message bus.
 * `SubagentJobQueue` of `@rxscope/harness/bullmq` is one (BullMQ jobs on Redis).
 *
 * @example
 * ```ts
 * import { SubagentJobQueue } from '@rxscope/harness/bullmq';
 * const taskQueue: SubagentTaskQueue = new SubagentJobQueue({ connection, bus });
 * new SubagentsMiddleware({ fileSystem: fs, taskQueue });
 * ```
 */
export interface SubagentTaskQueue {
  /** Enqueues the task; resolves once it is stored (a worker may run it from then on). */
  enqueue(request: SubagentTaskRequest): Promise<void>;
  /** How the task stands (`queued` while it waits for a worker), or undefined for another session's or an unknown task. */
  get(sessionId: string, taskId: string): Promise<TaskInfo | undefined>;
  /** Stops a task that has not ended (removed if waiting, aborted if running); false when there is none to stop. */
  cancel(sessionId: string, taskId: string, reason: string): Promise<boolean>;
  /** Passes a message to the task (read before its next step); resolves with why it could not, or undefined. */
  send(sessionId: string, taskId: string, message: string): Promise<string | undefined>;
}
