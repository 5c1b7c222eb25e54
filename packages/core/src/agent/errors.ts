import type { ErrorInfo, ReplyFinishReason } from '../event/events.js';
import { RxscopeError } from '../error/rxscope-error.js';

/**
 * The error `agent.call()` rejects with when a reply ends with `finishReason: 'error'`.
 *
 * @example
 * ```ts
 * try { await agent.call('hi'); } catch (e) { if (e instanceof AgentError) console.log(e.info.status); }
 * ```
 */
export class AgentError extends RxscopeError {
  override readonly name = 'AgentError';
  /** The failure's own code (`info.code`), else `reply_failed`. */
  readonly code: string;
  constructor(
    readonly info: ErrorInfo,
    readonly replyId: string,
    readonly finishReason: ReplyFinishReason = 'error',
  ) {
    super(`${info.name}: ${info.message}`);
    this.code = info.code ?? 'reply_failed';
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
export class AgentUsageError extends RxscopeError {
  override readonly name: string = 'AgentUsageError';
  /** `invalid_use`, or the subclass's own code. */
  readonly code: string = 'invalid_use';
}

/**
 * Thrown for a reply, a resume or a `send()` given to an agent that was shut down
 * (`agent.shutdown()`, e.g. on SIGTERM): the agent takes no new work. `code` is
 * `'shutting_down'`; HTTP handlers answer it with `503 Service Unavailable`, so a client retries
 * against another instance.
 *
 * @example
 * ```ts
 * agent.reply('hi').subscribe({ error: (e) => e instanceof AgentShutdownError && res.writeHead(503).end() });
 * ```
 */
export class AgentShutdownError extends AgentUsageError {
  override readonly name = 'AgentShutdownError';
  override readonly code = 'shutting_down';
  readonly status = 503;
}

/**
 * An input to `reply()`/`call()` that is none of the accepted shapes (a string, a message, an
 * array of messages, a resume event) — typically a request body passed straight through. Nothing
 * is added to the conversation; the Node handlers answer it with 400.
 *
 * @example
 * ```ts
 * agent.reply(JSON.parse('{}')).subscribe({ error: (e) => e instanceof InvalidReplyInputError && res.writeHead(400) });
 * ```
 */
export class InvalidReplyInputError extends AgentUsageError {
  override readonly code = 'invalid_input';
}
