// @rxscope/core/node/bullmq — replies as BullMQ jobs on Redis, run by workers in any process.
// A subpath of its own so that @rxscope/core/node never loads bullmq. Explicit named exports only.
export { ReplyQueue } from './reply-queue.js';
export type { ReplyQueueOptions } from './reply-queue.js';
export { ReplyWorker } from './reply-worker.js';
export type { ReplyWorkerOptions } from './reply-worker.js';
export { DEFAULT_REPLY_QUEUE } from './reply-job.js';
export type { ReplyJobData, ReplyJobProgress, ReplyJobResult } from './reply-job.js';
export { BullMQSessionScheduler, DEFAULT_SCHEDULE_QUEUE } from './bullmq-session-scheduler.js';
export type { BullMQSessionSchedulerOptions } from './bullmq-session-scheduler.js';
