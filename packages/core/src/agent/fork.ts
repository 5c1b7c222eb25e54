import type { Msg } from '../message/blocks.js';
import type { ConversationCut, Middleware } from '../middleware/middleware.js';
import type { AgentStateSnapshot } from '../state/snapshot.js';
import { AgentUsageError } from './errors.js';
import { refuseUnknownOptionKeys } from './known-keys.js';

/**
 * Options of `agent.fork()`: where the new conversation ends (`upTo`, inclusive, or `before`,
 * exclusive: exactly one) and the new session's id.
 *
 * @example
 * ```ts
 * const alt = agent.fork({ upTo: agent.context[1]!.id, sessionId: 'what-if' });
 * ```
 */
export interface AgentForkOptions {
  /** The last message the fork keeps: the id of a message of `agent.context`. */
  readonly upTo?: string;
  /** Or the first message it does not keep (`before` the first message: an empty conversation). */
  readonly before?: string;
  /** The new agent's session id (its key in the session store). Default: a new id. */
  readonly sessionId?: string;
}

/**
 * Options of `agent.rewind()`: the last message kept (`to`, inclusive) or the first one dropped
 * (`before`, exclusive): exactly one.
 *
 * @example
 * ```ts
 * agent.rewind({ before: lastUserMessage.id }); // as if it had never been sent
 * ```
 */
export interface AgentRewindOptions {
  /** The last message kept: the id of a message of `agent.context`. */
  readonly to?: string;
  /** Or the first message dropped. */
  readonly before?: string;
}

/**
 * `fork`/`rewind` named a message that is not in the agent's conversation (code
 * `unknown_message`; `messageId` is the id given). Messages a compaction replaced by its summary
 * and the message of a suspended reply are not in it.
 *
 * @example
 * ```ts
 * try { agent.rewind({ to: id }); } catch (e) { if (e instanceof UnknownMessageError) console.log(e.messageId); }
 * ```
 */
export class UnknownMessageError extends AgentUsageError {
  override readonly name = 'UnknownMessageError';
  override readonly code = 'unknown_message';
  constructor(
    /** The id given, which the conversation does not hold. */
    readonly messageId: string,
    what: string,
  ) {
    super(
      `${what}: no message "${messageId.slice(0, 200)}" in the conversation (of ${what.startsWith('sessions') ? 'the session' : 'this agent'}); ` +
        'use the id of a message of agent.context (a message a compaction replaced by its summary, or the message of a suspended reply, is not one).',
    );
  }
}

/**
 * `rewind()` (or a fork of a session) while a reply of the agent runs: code `reply_running`.
 * Wait for its `REPLY_END`, or interrupt it, then rewind.
 *
 * @example
 * ```ts
 * agent.interrupt(); await lastValueFrom(running$); agent.rewind({ to: id });
 * ```
 */
export class ReplyRunningError extends AgentUsageError {
  override readonly name = 'ReplyRunningError';
  override readonly code = 'reply_running';
}

/** The state of a fork: the conversation up to the cut, the middlewares' state for it, no pending reply nor queued messages. */
export function forkedState(
  snapshot: AgentStateSnapshot,
  middlewares: readonly Middleware[],
  options: AgentForkOptions,
): AgentStateSnapshot {
  refuseUnknownOptionKeys('agent.fork()', options, ['upTo', 'before', 'sessionId']);
  if (options.sessionId !== undefined && (typeof options.sessionId !== 'string' || !options.sessionId))
    throw new AgentUsageError(
      `agent.fork(): sessionId must be a non-empty string, got ${JSON.stringify(options.sessionId)}.`,
    );
  const end = cutIndex(snapshot.context, options.upTo, options.before, 'agent.fork()', 'upTo');
  const { pending: _pending, inbox: _inbox, ...rest } = cutAt(snapshot, middlewares, end, 'fork');
  return rest;
}

/** The state after a rewind: the conversation up to the cut, the middlewares' state for it, no pending reply; queued messages stay. */
export function rewoundState(
  snapshot: AgentStateSnapshot,
  middlewares: readonly Middleware[],
  options: AgentRewindOptions,
  running: boolean,
): AgentStateSnapshot {
  refuseUnknownOptionKeys('agent.rewind()', options, ['to', 'before']);
  const end = cutIndex(snapshot.context, options.to, options.before, 'agent.rewind()', 'to');
  if (running) {
    throw new ReplyRunningError(
      'agent.rewind(): a reply of this agent is running; wait for its REPLY_END (or interrupt it), then rewind. Nothing changed.',
    );
  }
  const { pending: _pending, ...rest } = cutAt(snapshot, middlewares, end, 'rewind');
  return rest;
}

/** Index of the first message dropped. */
function cutIndex(context: readonly Msg[], upTo: unknown, before: unknown, what: string, upToName: string): number {
  if ((upTo === undefined) === (before === undefined))
    throw new AgentUsageError(
      `${what} takes exactly one of { ${upToName} } (the last message kept) and { before } (the first one dropped).`,
    );
  const id = upTo ?? before;
  if (typeof id !== 'string' || !id)
    throw new AgentUsageError(`${what}: a message id is a non-empty string, got ${JSON.stringify(id)}.`);
  const index = context.findIndex((m) => m.id === id);
  if (index < 0) throw new UnknownMessageError(id, what);
  return upTo !== undefined ? index + 1 : index;
}

function cutAt(
  snapshot: AgentStateSnapshot,
  middlewares: readonly Middleware[],
  end: number,
  kind: ConversationCut['kind'],
): AgentStateSnapshot {
  // A reply is one message holding its tool calls with their results: a cut between messages never splits a pair.
  const cut: ConversationCut = { kind, kept: snapshot.context.slice(0, end), dropped: snapshot.context.slice(end) };
  const middlewareState: Record<string, unknown> = structuredClone({ ...snapshot.middlewareState });
  for (const m of middlewares) {
    if (!m.key || !m.onConversationCut) continue;
    const next = m.onConversationCut(middlewareState[m.key], cut);
    if (next === undefined) delete middlewareState[m.key];
    else middlewareState[m.key] = next;
  }
  return { ...snapshot, context: cut.kept, middlewareState, savedAt: Date.now() };
}

const forkSaves = new WeakMap<object, { readonly save: Promise<void>; awaited: boolean }>();

/**
 * Records the first save of a fork to its session store: `sessions.fork()` waits on it (and gets
 * its failure); otherwise a failure (the session id is taken) goes to `report`.
 */
export function noteForkSave(agent: object, save: Promise<void> | undefined, report: (error: unknown) => void): void {
  if (!save) return;
  const entry = { save, awaited: false };
  forkSaves.set(agent, entry);
  save.catch((error: unknown) => {
    if (!entry.awaited) report(error);
  });
}

/** The first save of a fork (resolved when it has no store); rejects when the session id is taken. */
export function forkSaved(agent: object): Promise<void> {
  const entry = forkSaves.get(agent);
  if (!entry) return Promise.resolve();
  entry.awaited = true;
  return entry.save;
}
