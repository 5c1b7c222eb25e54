import type { ErrorInfo, ReplyFinishReason } from '../event/events.js';

/**
 * The error `agent.call()` rejects with when a reply ends with `finishReason: 'error'`.
 *
 * @example
 * ```ts
 * try { await agent.call('hi'); } catch (e) { if (e instanceof AgentError) console.log(e.info.status); }
 * ```
 */
export class AgentError extends Error {
  override readonly name = 'AgentError';
  constructor(
    readonly info: ErrorInfo,
    readonly replyId: string,
    readonly finishReason: ReplyFinishReason = 'error',
  ) {
    super(`${info.name}: ${info.message}`);
  }
}

/**
 * Thrown for input the agent refuses before a reply starts (a resume with no suspended reply,
 * an invalid option), with a message that says how to fix it.
 *
 * @example
 * ```ts
 * agent.reply({ type: 'USER_CONFIRM_RESULT', results: [] }).subscribe({ error: (e: AgentUsageError) => console.log(e.message) });
 * ```
 */
export class AgentUsageError extends Error {
  override readonly name = 'AgentUsageError';
}
