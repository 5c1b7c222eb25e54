import type { Agent, ReplyInput } from '../../agent/agent.js';
import type { Msg } from '../../message/blocks.js';

/**
 * What `sessions.wake()` did: started a reply (`started: true`, its id), or not, and why:
 * `running` (a reply of the session runs: here, a message given joined it with `agent.send()`,
 * `joined: true`; in another process — its `REPLY_START` is on the event bus — it did not),
 * `opted_out` (the session does not take wake-ups: `AgentSessions` option `wakeUps`),
 * `shutting_down` (the service stops).
 *
 * @example
 * ```ts
 * const woke = await sessions.wake('s1', 'The nightly report is ready.');
 * if (!woke.started) console.log(woke.reason); // 'running' | 'opted_out' | 'shutting_down'
 * ```
 */
export type WakeResult =
  | { readonly started: true; readonly replyId: string }
  | { readonly started: false; readonly reason: 'running' | 'opted_out' | 'shutting_down'; readonly joined?: boolean };

/** What waking a session needs of `AgentSessions`. */
export interface WakeHost {
  readonly closing: boolean;
  readonly optedIn: (sessionId: string) => boolean;
  readonly running: (sessionId: string) => boolean;
  /** True when the session's event bus has a reply of it in progress (in any process). */
  readonly openOnBus: (sessionId: string) => Promise<boolean>;
  readonly agent: (sessionId: string) => Promise<Agent>;
  readonly start: (sessionId: string, input: ReplyInput) => Promise<{ readonly replyId: string }>;
}

/**
 * Starts a reply of an idle session (with `message` as its input, or with none: the reply then
 * begins with what waits for it, e.g. the messages of its inbox); joins `message` to the reply
 * running here instead. One reply per session at a time: a wake-up never starts a second one,
 * here or (on a bus that tells, `openReply`) while one runs in another process.
 */
export async function wakeSession(host: WakeHost, sessionId: string, message?: string | Msg): Promise<WakeResult> {
  if (host.closing) return { started: false, reason: 'shutting_down' };
  if (!host.optedIn(sessionId)) return { started: false, reason: 'opted_out' };
  if (host.running(sessionId)) return joinRunning(host, sessionId, message);
  // A reply of the session runs in another process: it takes the inbox itself; a message given is not delivered.
  if (await host.openOnBus(sessionId)) return { started: false, reason: 'running', joined: false };
  if (host.running(sessionId)) return joinRunning(host, sessionId, message);
  try {
    const { replyId } = await host.start(sessionId, message ?? []);
    return { started: true, replyId };
  } catch (error) {
    // Another wake-up or a client started one in between: the message joins that reply.
    if (host.running(sessionId)) return joinRunning(host, sessionId, message);
    throw error;
  }
}

async function joinRunning(host: WakeHost, sessionId: string, message?: string | Msg): Promise<WakeResult> {
  if (message === undefined) return { started: false, reason: 'running' };
  (await host.agent(sessionId)).send(message);
  return { started: false, reason: 'running', joined: true };
}
