import { type MonoTypeOperatorFunction, Observable } from 'rxjs';
import { AgentSharedError } from './agent-shared-error.js';

/**
 * Who an agent is being served to: a session key (a session or thread id, or a unique symbol when
 * the server knows no session, so that each request is its own), the handler's name for the
 * message, and whether the server declared the agent shared.
 */
export interface SessionClaim {
  readonly session: string | symbol;
  readonly by: string;
  readonly shared?: boolean;
}

// The session each agent served first. Weak: a dropped agent takes its claim with it.
const owners = new WeakMap<object, string | symbol>();
// Agents a session registry made for one session (AgentSessions): a request whose session the
// server does not name continues that session, so only a different named session is refused.
const bound = new WeakMap<object, string>();
// The claim of the subscription being made right now (subscribing is synchronous, so a module
// variable set around one `subscribe` call reaches the `reply()` at the root of that chain only).
let pending: SessionClaim | undefined;

/**
 * Records that `agent` serves `claim.session`; throws {@link AgentSharedError} when it already
 * serves another session and the claim is not `shared`.
 */
export function claimAgent(agent: { readonly name: string }, claim: SessionClaim): void {
  if (claim.shared) return;
  const session = bound.get(agent);
  if (session !== undefined && (typeof claim.session === 'symbol' || claim.session === session)) return;
  const owner = session ?? owners.get(agent);
  if (owner === undefined) {
    owners.set(agent, claim.session);
    return;
  }
  if (owner === claim.session) return;
  const known = typeof claim.session === 'string';
  throw new AgentSharedError(
    `${claim.by} was about to serve agent "${agent.name}" to a second ${known ? 'session' : 'request'}: ` +
      `an Agent is one conversation, so one user would see another's messages and wait for their replies. ` +
      `Build one agent per session (new AgentSessions({ agent: (sessionId) => new Agent({...}) }) and ` +
      `sessions.agent(sessionId), or a factory)` +
      (known
        ? ''
        : `; when several requests continue one conversation, say which session a request belongs to ` +
          `(the handler's sessionId option)`) +
      `; or, if every request really is the same conversation, pass shared: true to ${claim.by}.`,
  );
}

/**
 * Binds `agent` to the session a registry made it for (`AgentSessions` does, for every agent its
 * factory returns): handlers then serve it across requests without a `sessionId` option, and a
 * factory that returns one agent for two sessions is refused with {@link AgentSharedError}.
 */
export function bindAgentToSession(agent: { readonly name: string }, sessionId: string, by: string): void {
  const session = bound.get(agent);
  if (session === sessionId) return;
  if (session !== undefined) {
    throw new AgentSharedError(
      `${by}'s agent factory returned agent "${agent.name}" for a second session: an Agent is one ` +
        `conversation, so one user would see another's messages and wait for their replies. ` +
        `Return a new Agent for each session id (new AgentSessions({ agent: (sessionId) => new Agent({ ..., sessionId }) })).`,
    );
  }
  bound.set(agent, sessionId);
}

/**
 * Subscribes to the source with `claim` pending: the first `agent.reply()` subscribed during that
 * (synchronous) subscription claims its agent for the session, and is refused with an
 * {@link AgentSharedError} (before it queues) when the agent serves another session.
 */
export function claimOnSubscribe<T>(claim: SessionClaim): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      const previous = pending;
      pending = claim;
      try {
        return source.subscribe(subscriber);
      } finally {
        pending = previous;
      }
    });
}

/** Called by `agent.reply()` when subscribed: takes the pending claim, if any (see {@link claimOnSubscribe}). */
export function claimPending(agent: { readonly name: string }): void {
  const claim = pending;
  if (!claim) return;
  // Only the reply at the root of the chain: a subagent's reply started inside it is not this session's.
  pending = undefined;
  claimAgent(agent, claim);
}
