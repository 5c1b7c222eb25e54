import type { ReplyEndEvent, ReplyFinishReason } from '../event/events.js';
import { AgentShutdownError } from './errors.js';
import type { ReplyRun } from './loop/reply-run.js';

/**
 * Options of `agent.shutdown()`.
 *
 * @example
 * ```ts
 * const options: AgentShutdownOptions = { graceMs: 5_000, reason: 'received SIGTERM' };
 * await agent.shutdown(options);
 * ```
 */
export interface AgentShutdownOptions {
  /**
   * How long the running reply may take to reach a safe point (its running model call and tool
   * calls finish; nothing new starts) before it is cut off. Default 10,000 ms.
   */
  readonly graceMs?: number;
  /** Why: the `stopReason.message` of `REPLY_END` and the saved reply's `shutdown.reason`. Default `'the agent was shut down'`. */
  readonly reason?: string;
}

/**
 * What `agent.shutdown()` did with the agent's running reply.
 *
 * @example
 * ```ts
 * const { finishReason, sessionId } = await agent.shutdown();
 * if (finishReason === 'shutdown') console.log(`session ${sessionId} resumes after the restart`);
 * ```
 */
export interface AgentShutdownResult {
  readonly agentName: string;
  readonly sessionId: string;
  /** The reply that was running, if one was. */
  readonly replyId?: string;
  /**
   * How that reply ended: `'shutdown'` (saved; continue it with `{type: 'RESUME_REPLY'}`), or
   * its own end when it finished within the grace period (`'completed'`, `'awaiting_confirmation'`,
   * …; `'error'` when saving failed). Absent when no reply was running.
   */
  readonly finishReason?: ReplyFinishReason;
  /** True when the grace period ran out and the running model call or tool call was cut off. */
  readonly cut: boolean;
}

/** The reply running in an agent, as its shutdown sees it. */
export interface RunningReply {
  readonly run: ReplyRun;
  readonly controller: AbortController;
  /** Resolves with the reply's `REPLY_END` once its stream is over (`undefined` when it was cancelled before one). */
  readonly ended: Promise<ReplyEndEvent | undefined>;
}

/**
 * Brings a running reply to a safe stop: it finishes what runs (model call, tool calls) and
 * starts nothing new; after `graceMs` the running step is cut off. Resolves with how the reply
 * ended once its stream is over and `flushed()` (the session store's pending saves) resolved.
 */
export async function shutdownReply(
  current: RunningReply | undefined,
  reason: string,
  graceMs: number,
  flushed: () => Promise<void>,
): Promise<Pick<AgentShutdownResult, 'replyId' | 'finishReason' | 'cut'>> {
  if (!current) {
    await flushed();
    return { cut: false };
  }
  const { run, controller } = current;
  run.shutdown(reason);
  let cut = false;
  const timer = setTimeout(
    () => {
      cut = run.cutForShutdown(reason);
      if (cut) controller.abort(new Error(`the reply was cut off by a shutdown: ${reason}`));
    },
    Math.max(0, graceMs),
  );
  try {
    const end = await current.ended;
    await flushed();
    return {
      replyId: run.ctx.replyId,
      cut,
      ...(end ? { finishReason: end.finishReason } : { finishReason: 'interrupted' as const }),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Refuses new work of an agent that was shut down (`closedFor`: why), saying where it goes instead. */
export function refuseWhenShutDown(name: string, closedFor: string | undefined, what: 'reply' | 'message'): void {
  if (closedFor === undefined) return;
  throw new AgentShutdownError(
    `Agent "${name}" is shut down (${closedFor}) and takes no new ${what}; send it to a running instance ` +
      `(a reply it had running is saved and continues there with { type: 'RESUME_REPLY' }).`,
  );
}
