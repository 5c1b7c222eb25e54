import type { Agent } from '../../agent/agent.js';
import { AgentUsageError } from '../../agent/errors.js';
import { forkSaved } from '../../agent/fork.js';
import { refuseUnknownOptionKeys } from '../../agent/known-keys.js';

/**
 * Options of `sessions.fork()`: where the new session's conversation ends (`upTo`, inclusive, or
 * `before`, exclusive: exactly one) and its id.
 *
 * @example
 * ```ts
 * await sessions.fork('s1', { upTo: messageId, newSessionId: 's1-alt' });
 * ```
 */
export interface SessionForkOptions {
  /** The last message kept: the id of a message of the session's conversation. */
  readonly upTo?: string;
  /** Or the first message not kept. */
  readonly before?: string;
  /** The new session's id; refused when this service or the session store already has it. */
  readonly newSessionId: string;
}

/**
 * Forks a session's agent into a new session and waits until its state is in the session store
 * (a session id the store already holds rejects with a `SessionConflictError`).
 */
export async function forkSessionAgent(
  sessionId: string,
  agent: Agent,
  options: SessionForkOptions,
  known: (sessionId: string) => boolean,
): Promise<Agent> {
  refuseUnknownOptionKeys('sessions.fork()', options, ['upTo', 'before', 'newSessionId']);
  const { newSessionId, ...at } = options;
  if (typeof newSessionId !== 'string' || !newSessionId)
    throw new AgentUsageError(
      `sessions.fork(): newSessionId must be a non-empty string, got ${JSON.stringify(newSessionId)}.`,
    );
  if (newSessionId === sessionId || known(newSessionId))
    throw new AgentUsageError(
      `sessions.fork(): session "${newSessionId.slice(0, 200)}" exists already; pick a new id.`,
    );
  const forked = agent.fork({ ...at, sessionId: newSessionId });
  await forkSaved(forked);
  return forked;
}
