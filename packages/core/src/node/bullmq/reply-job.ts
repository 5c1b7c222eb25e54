import type { ReplyInput } from '../../agent/agent-options.js';
import type { ReplyFinishReason } from '../../event/events.js';

/** The queue replies are enqueued on when no name is given. */
export const DEFAULT_REPLY_QUEUE = 'rxscope-replies';

/**
 * What a reply job carries: the session, and the reply's input — a message, a
 * `USER_CONFIRM_RESULT` / `EXTERNAL_EXECUTION_RESULT` that answers the suspended reply, or
 * `{type: 'RESUME_REPLY'}` that continues a reply saved by a shutdown. Stored as JSON in Redis.
 *
 * @example
 * ```ts
 * const data: ReplyJobData = { sessionId: 'orders-42', input: 'Refund order B-2' };
 * ```
 */
export interface ReplyJobData {
  /** The session whose agent replies (the key in the session store and on the event bus). */
  readonly sessionId: string;
  /** What the agent replies to. */
  readonly input: ReplyInput;
  /**
   * The job's turn among its session's replies (set by `ReplyQueue.enqueue`): a worker runs it
   * only after every earlier reply of the session has finished. Absent: it runs at once.
   */
  readonly turn?: number;
}

/**
 * What a reply job resolves with: the reply's id and how it ended (`completed`,
 * `awaiting_confirmation`, `shutdown`, `error`...). A reply that ends with `error` still
 * completes its job: its state (the failed reply closed) is saved, and running it again would
 * repeat its model calls and tools.
 *
 * @example
 * ```ts
 * const result: ReplyJobResult = await job.waitUntilFinished(queueEvents);
 * if (result.finishReason === 'awaiting_confirmation') notifyUser(result.replyId);
 * ```
 */
export interface ReplyJobResult {
  /** The reply's id (a resumed reply keeps the id of the reply it continues). */
  readonly replyId: string;
  /** The `finishReason` of the reply's `REPLY_END`. */
  readonly finishReason: ReplyFinishReason;
}

/**
 * A job's progress while its reply runs: the reply's id, so that the next attempt (after its
 * worker died) can end that reply on the bus.
 *
 * @example
 * ```ts
 * const { replyId } = (await replies.queue.getJob(jobId))!.progress as ReplyJobProgress;
 * ```
 */
export interface ReplyJobProgress {
  /** The running reply's id. */
  readonly replyId: string;
  /** The agent's name (the reply's `source`). */
  readonly source: string;
}

/** True for a progress value written by a reply job. */
export function isReplyJobProgress(progress: unknown): progress is ReplyJobProgress {
  return (
    typeof progress === 'object' &&
    progress !== null &&
    typeof (progress as { replyId?: unknown }).replyId === 'string' &&
    typeof (progress as { source?: unknown }).source === 'string'
  );
}
