import type { Agent, ReplyInput } from '../../agent/agent.js';
import { AgentUsageError } from '../../agent/errors.js';
import type { SessionStore } from '../../state/session-store.js';

/**
 * What `sessions.recover()` did: the replies it continues (each runs detached, its events on the
 * bus), and the sessions it left, with why (a reply still held by another process, nothing left
 * running, a failure).
 *
 * @example
 * ```ts
 * const { recovered, skipped } = await sessions.recover();
 * for (const r of recovered) log.info(`reply ${r.replyId} of ${r.sessionId} continues from step ${r.fromStep}`);
 * ```
 */
export interface RecoveryReport {
  readonly recovered: readonly { readonly sessionId: string; readonly replyId: string; readonly fromStep: number }[];
  readonly skipped: readonly { readonly sessionId: string; readonly reason: string }[];
}

/** What recovering needs of the sessions. */
export interface RecoveryHost {
  agent(sessionId: string): Promise<Agent>;
  running(sessionId: string): boolean;
  start(sessionId: string, input: ReplyInput): Promise<{ readonly replyId: string }>;
}

/**
 * Continues the replies left running in the given sessions (or in every session whose journal
 * the store holds), one session after another.
 */
export async function recoverSessions(
  host: RecoveryHost,
  sessionIds: readonly string[] | undefined,
  store: SessionStore | undefined,
): Promise<RecoveryReport> {
  if (sessionIds === undefined && !store?.listJournals) {
    throw new AgentUsageError(
      'sessions.recover() needs the session ids, or the store (new AgentSessions({ store })) to list the sessions with a ' +
        'journal; a store without listJournals() cannot list them.',
    );
  }
  const ids = sessionIds ?? (await store!.listJournals!());
  const recovered: { sessionId: string; replyId: string; fromStep: number }[] = [];
  const skipped: { sessionId: string; reason: string }[] = [];
  for (const sessionId of ids) {
    try {
      if (host.running(sessionId)) {
        skipped.push({ sessionId, reason: 'a reply of the session runs here' });
        continue;
      }
      const left = await (await host.agent(sessionId)).recoverable();
      if (!left) {
        skipped.push({ sessionId, reason: 'no reply was left running' });
        continue;
      }
      const { replyId } = await host.start(sessionId, { type: 'RECOVER_REPLY', replyId: left.replyId });
      recovered.push({ sessionId, replyId, fromStep: left.fromStep });
    } catch (error) {
      skipped.push({ sessionId, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { recovered, skipped };
}
