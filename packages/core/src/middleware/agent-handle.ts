import type { Msg } from '../message/blocks.js';
import type { ChatModel } from '../model/chat-model.js';
import type { Permissions } from '../permission/permissions.js';
import type { AgentStateSnapshot, PendingReply } from '../state/snapshot.js';
import type { Tool } from '../tool/tool.js';

/**
 * What a middleware may use of the agent it runs in: the agent's identity, what it offers and
 * remembers, and the two ways to reach a running reply from the side (`send`, `interrupt`).
 * Every hook receives it as its first argument; `Agent` implements it.
 *
 * It deliberately has no `reply()`, `call()` or `shutdown()`: a hook runs inside the agent's
 * reply, and replies queue one at a time, so a hook that started a reply of its own agent would
 * wait for itself. A middleware that needs another agent takes that agent in its options.
 *
 * @example
 * ```ts
 * const greeter: Middleware = {
 *   onSystemPrompt: (agent: AgentHandle, ctx, prompt) => `${prompt}\nYou are ${agent.name}; ${agent.tools.length} tools.`,
 * };
 * ```
 */
export interface AgentHandle {
  /** The agent's name: the `source` of its events. */
  readonly name: string;
  /** The session this agent's state belongs to (`ctx.sessionId`, the key in the store). */
  readonly sessionId: string;
  /** The model of its reasoning steps. */
  readonly model: ChatModel;
  /** Permission mode and rules; change them at runtime, they persist with the state. */
  readonly permissions: Permissions;
  /** Every tool offered to the model: the agent's own, then those of its middlewares. */
  readonly tools: readonly Tool[];
  /**
   * The agent's own tools (its `tools` option), without those of its middlewares: what can be
   * lent to another agent, since a middleware's tool needs that middleware around it.
   */
  readonly ownTools: readonly Tool[];
  /** The conversation so far (user messages and reply messages). */
  readonly context: readonly Msg[];
  /** Messages sent with `send()` that have not joined a reply yet, oldest first. */
  readonly queued: readonly Msg[];
  /** The suspended reply waiting for a confirmation or an external result, if any. */
  readonly pending: PendingReply | undefined;
  /** True while a reply runs. */
  readonly busy: boolean;
  /** True once `shutdown()` was called: the agent refuses new replies and messages. */
  readonly shuttingDown: boolean;
  /** Hands a message to the running reply (seen at its next model request), else to the next reply. */
  send(message: string | Msg): void;
  /** Stops the running reply (`REPLY_END {finishReason: 'interrupted'}`); no effect when idle. */
  interrupt(reason?: string): void;
  /** The agent's state as a JSON-safe snapshot (conversation, middleware state, permissions). */
  saveState(): AgentStateSnapshot;
}
