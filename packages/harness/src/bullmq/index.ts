// @rxscope/harness/bullmq — background subagents as BullMQ jobs on Redis, run by workers in any
// process. A separate entry point, so that the main entry never loads bullmq (an optional peer).
export { SubagentJobQueue } from '../subagents/bullmq/subagent-job-queue.js';
export type { SubagentJobQueueOptions } from '../subagents/bullmq/subagent-job-queue.js';
export { SubagentJobWorker } from '../subagents/bullmq/subagent-job-worker.js';
export type {
  SubagentJobWorkerOptions,
  SubagentWorkerShutdownOptions,
  SubagentWorkerShutdownReport,
} from '../subagents/bullmq/subagent-job-worker.js';
export { DEFAULT_SUBAGENT_QUEUE } from '../subagents/bullmq/subagent-job.js';
export type { SubagentJobData, SubagentJobResult } from '../subagents/bullmq/subagent-job.js';
