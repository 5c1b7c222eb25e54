import type { ContentBlock, Msg } from '../message/blocks.js';
import { RxscopeError } from '../error/rxscope-error.js';

/**
 * Where a block of the conversation is: the result or the call of a tool call (by the call's
 * id), a hint (by the id it was added with), or any block by message id and position.
 *
 * @example
 * ```ts
 * const ref: BlockRef = { toolResult: 'call_1' };
 * ctx.conversation.replaceBlock(ref, { ...result, output: [{ type: 'text', text: 'Saved to large_tool_results/call_1.txt' }] });
 * ```
 */
export type BlockRef =
  | { readonly toolResult: string }
  | { readonly toolCall: string }
  | { readonly hint: string }
  | { readonly message: string; readonly index: number };

/** Options of {@link Conversation.addHint}. */
export interface HintOptions {
  /**
   * Identifies the hint: adding a hint whose id is already in the reply is a no-op (a step
   * re-entered by a retry does not add it twice), and `removeHint(id)` removes it. Prefix it
   * with your middleware's key. Default: a fresh id.
   */
  readonly id?: string;
  /**
   * `'step'`: part of the next model request only, then removed from the conversation.
   * `'persistent'` (default): stays in the conversation (and in `saveState()`).
   */
  readonly lifetime?: 'step' | 'persistent';
  /** Who the hint is from, carried by `HINT_BLOCK` as `hintSource` (`'user'` is used by `agent.send()`). */
  readonly source?: string;
}

/**
 * The conversation of the running reply, editable by middlewares: what `saveState()` holds and
 * what the model sees. `messages` is the agent's context followed by the reply so far (a message
 * whose id is the reply id; absent while the reply has no content yet).
 *
 * Edits change what is persisted, not only one request: a summary that replaces older messages
 * is what the next step (and the next reply) sees. An edit that would leave a tool call without
 * its result, or a result without its call, is refused with a {@link ConversationEditError} and
 * changes nothing. Blocks of the reply that are still streaming cannot be edited.
 *
 * In `onReasoning`, edits made before calling `next` are visible to the step being assembled:
 * when the `messages` passed on is the conversation as it was handed out (unchanged by the
 * middleware), inner layers and the model receive the edited conversation instead. A middleware
 * that passes a `messages` array of its own gets exactly that array sent (a model-only change).
 *
 * @example
 * ```ts
 * onReasoning(agent, ctx, input, next) {
 *   const messages = ctx.conversation.messages;
 *   if (estimateTokens(messages) > 60_000) {
 *     ctx.conversation.replaceMessages(0, messages.length - 4, [createMsg('user', `Summary so far: ${summary}`)]);
 *   }
 *   return next(input); // the model sees the summary and the last four messages
 * }
 * ```
 */
export interface Conversation {
  /** The agent's context, then the reply so far. A fresh immutable array after every change. */
  readonly messages: readonly Msg[];
  /**
   * Replaces `messages[start, end)` with `replacement`. A replacement whose last message has the
   * reply's id becomes the reply so far; if the reply's message is replaced by other messages,
   * the reply continues in a new message with its id.
   */
  replaceMessages(start: number, end: number, replacement: readonly Msg[]): void;
  /** Replaces one block. A tool result may be replaced by another result of the same call only. */
  replaceBlock(ref: BlockRef, block: ContentBlock): void;
  /**
   * Adds a hint for the model at the end of the reply so far, emitted once as `HINT_BLOCK`
   * (before the next model call). Returns its id.
   */
  addHint(text: string, options?: HintOptions): string;
  /** True when a hint with this id is in the reply so far (it was added and not removed). */
  hasHint(id: string): boolean;
  /** Removes the hints with this id (from the reply and earlier messages); false when there was none. */
  removeHint(id: string): boolean;
}

/**
 * Thrown by an edit of {@link Conversation} that is refused (a call/result pair broken, a block
 * that is still streaming, a bad range or message); nothing was changed.
 *
 * @example
 * ```ts
 * try { ctx.conversation.replaceMessages(0, 3, [summary]); } catch (e) { if (e instanceof ConversationEditError) keepOlder(); }
 * ```
 */
export class ConversationEditError extends RxscopeError {
  override readonly name = 'ConversationEditError';
  readonly code = 'conversation_edit_refused';
}
