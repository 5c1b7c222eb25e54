import type { Agent } from '../../agent/agent.js';
import { optionKeys } from '../../error/check-option-keys.js';
import type { SessionStore } from '../../state/session-store.js';
import type { SessionScheduler } from './schedules/session-schedule.js';
import type { SessionEventBus } from './session-event-bus.js';

/**
 * What the agent factory of {@link AgentSessions} knows of a session when it builds its agent.
 *
 * @example
 * ```ts
 * new AgentSessions({ store, agent: (id, { userId }) => makeAgent(id, `/srv/ws/${encodeURIComponent(userId ?? 'shared')}`) });
 * ```
 */
export interface AgentSessionInfo {
  /** The session's owner, when it has one. */
  readonly userId?: string;
}

/** Options of {@link AgentSessions}. */
export interface AgentSessionsOptions {
  /**
   * The agent of a session; called once per session (the result is kept). `session.userId` is
   * the session's owner: as the store has it, else the user of the `start()` that creates the
   * agent (`undefined` for an anonymous session). Build per-user parts from it, e.g. a harness
   * workspace per user (its memory then is the user's own).
   */
  readonly agent: (sessionId: string, session: AgentSessionInfo) => Agent | Promise<Agent>;
  /** Where replies' events go. Default: a new `InMemorySessionEventBus`. */
  readonly bus?: SessionEventBus;
  /**
   * How long `cancel()` waits for the interrupted reply to end by itself before cutting it off
   * (unsubscribing, and appending the closing events and `REPLY_END` itself). Default 5,000 ms.
   */
  readonly cancelGraceMs?: number;
  /** Failures with no caller to report to (the bus failing mid-reply). Default: `console.error`. */
  readonly onError?: (error: unknown) => void;
  /**
   * The session store of the session agents, when they have one: `events(id, { userId })` reads a
   * session's owner from it when this process's agent of the session has not loaded it yet (the
   * session was started in another process).
   */
  readonly store?: SessionStore;
  /**
   * Which sessions take wake-ups (`wake()`: inbox messages, background results, schedules).
   * Default `true` (all); `false` (none), or a function of the session id.
   */
  readonly wakeUps?: boolean | ((sessionId: string) => boolean);
  /** Where `schedule()` keeps schedules and what fires them. Default: a new `InMemorySessionScheduler`. */
  readonly scheduler?: SessionScheduler;
}

/** Who a session call acts for (see `reply(input, { userId })`). */
export interface SessionUserOptions {
  /**
   * The user the call acts for. `start`: the reply's `ctx.userId` (the session's first reply
   * with one makes that user its owner). `events`: the reader; a session of another user is
   * refused with a `SessionForbiddenError` (HTTP 403).
   */
  readonly userId?: string;
}

// Every option, typed against AgentSessionsOptions: adding one there without listing it here fails to compile.
export const AGENT_SESSIONS_OPTION_KEYS = optionKeys<AgentSessionsOptions>({
  agent: true,
  store: true,
  wakeUps: true,
  scheduler: true,
  bus: true,
  cancelGraceMs: true,
  onError: true,
});
