import type { Msg } from '../message/blocks.js';
import type { Permissions } from '../permission/permissions.js';
import { newId } from '../util/id.js';
import { parseAgentState, STATE_VERSION, type AgentStateSnapshot, type PendingReply } from '../state/snapshot.js';
import { SendInbox } from './send-inbox.js';
import type { JsonObject } from '../util/json-patch.js';
import { SessionSharedState } from '../state/shared-state.js';

/**
 * What an agent keeps between replies, and what `saveState()` writes: the conversation, the
 * summary, the middleware state, the permission settings, the suspended reply and the messages
 * sent with `send()` that wait for a reply.
 */
export class SessionState {
  /** The conversation (user messages and reply messages); replaced, never mutated in place. */
  context: readonly Msg[] = [];
  summary: string | undefined;
  /** `ctx.state(key)` values of the middlewares. */
  middlewareState: Record<string, unknown> = {};
  /** The shared state (`ctx.sharedState`): a JSON object, replaced on each change. */
  sharedState: JsonObject = {};
  /** The shared state's API, which emits its changes into the running reply. */
  readonly shared = new SessionSharedState(this);
  /** The reply suspended for confirmation or external execution, if any. */
  pending: PendingReply | undefined;
  /** Messages sent with `agent.send()` that have not joined a reply yet. */
  readonly inbox = new SendInbox();
  /** The user the session belongs to (the first reply's `userId`); another user's replies are refused. */
  owner: string | undefined;

  constructor(readonly permissions: Permissions) {}

  /** Appends messages to the conversation. */
  append(messages: readonly Msg[]): void {
    if (messages.length) this.context = [...this.context, ...messages];
  }

  /**
   * Takes everything from a snapshot (validated by the caller). `fromStore`: a newer state loaded
   * from the session store, which keeps the messages sent here that were not saved yet.
   */
  /**
   * The agent's starting state: the snapshot given as `new Agent({ state })` (validated), if any.
   * Returns the session id: the one given, else the snapshot's, else a new one.
   */
  begin(state: unknown, sessionId: string | undefined): string {
    if (state === undefined) return sessionId ?? newId('session');
    const snapshot = parseAgentState(state);
    this.restore(snapshot);
    return sessionId ?? snapshot.sessionId;
  }

  restore(snapshot: AgentStateSnapshot, fromStore = false): void {
    this.context = [...snapshot.context];
    this.summary = snapshot.summary;
    this.middlewareState = structuredClone({ ...snapshot.middlewareState });
    this.sharedState = structuredClone(snapshot.sharedState ?? {});
    this.permissions.replace(snapshot.permissions);
    this.pending = snapshot.pending;
    this.inbox.restore(snapshot.inbox, fromStore);
    this.owner = snapshot.owner;
  }

  /** A JSON-serialisable, versioned snapshot of the state. */
  snapshot(agentName: string, sessionId: string): AgentStateSnapshot {
    return {
      version: STATE_VERSION,
      agentName,
      sessionId,
      context: this.context,
      ...(this.summary !== undefined ? { summary: this.summary } : {}),
      middlewareState: structuredClone(this.middlewareState),
      ...(Object.keys(this.sharedState).length ? { sharedState: structuredClone(this.sharedState) } : {}),
      permissions: this.permissions.state,
      ...(this.pending ? { pending: this.pending } : {}),
      ...(this.inbox.size ? { inbox: this.inbox.messages } : {}),
      ...(this.owner !== undefined ? { owner: this.owner } : {}),
      savedAt: Date.now(),
    };
  }
}
