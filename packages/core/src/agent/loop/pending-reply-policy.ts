import type { AgentEvent } from '../../event/events.js';
import type { Msg, ToolCallBlock } from '../../message/blocks.js';
import { unansweredToolCalls } from '../../message/msg.js';
import { createReplyReducer } from '../../event/reducer.js';
import type { PendingReply } from '../../state/snapshot.js';
import { resultEvents } from './tool-run.js';
import { AgentUsageError } from '../errors.js';
import { ReplyContext } from './reply-context.js';

/** What a plain message does while a reply waits for confirmation or external results. */
export type WhilePending = 'reject-pending' | 'refuse';

/** The suspended reply closed by a new message: its final message, and the notice for the new reply. */
export interface ClosedPendingReply {
  /** The suspended reply's message with every waiting call answered (appended to the conversation). */
  readonly message: Msg;
  /** The `CUSTOM` `pending_calls_rejected` event the new reply emits right after `REPLY_START`. */
  readonly notice: (ctx: ReplyContext) => AgentEvent;
}

/** The tool calls of a reply suspended by a shutdown that never started (they have no result). */
function callsNotStarted(message: Msg): ToolCallBlock[] {
  const ids = new Set(unansweredToolCalls([message]));
  return message.content.filter((b): b is ToolCallBlock => b.type === 'tool_call' && ids.has(b.id));
}

/**
 * Applies the `whilePending` policy to a plain message that arrives while `pending` waits:
 * `'refuse'` throws an {@link AgentUsageError} naming the calls to answer; `'reject-pending'`
 * answers each waiting call (`denied` for a confirmation, `interrupted` for an external call
 * and for a call a shutdown kept from starting)
 * and returns the closed reply, so the message can start a new one.
 */
export function closePendingReply(
  pending: PendingReply,
  policy: WhilePending,
  agentName: string,
  sessionId: string,
): ClosedPendingReply {
  const notStarted = pending.shutdown ? callsNotStarted(pending.message) : [];
  const waiting = [...pending.confirm, ...pending.external, ...notStarted];
  if (policy === 'refuse') {
    if (pending.shutdown) {
      throw new AgentUsageError(
        `Agent "${agentName}" has reply ${pending.replyId} suspended by a shutdown (${pending.shutdown.reason}); ` +
          "continue it with { type: 'RESUME_REPLY' } before sending a new message.",
      );
    }
    throw new AgentUsageError(
      `Agent "${agentName}" is waiting for ${pending.confirm.length ? 'USER_CONFIRM_RESULT' : 'EXTERNAL_EXECUTION_RESULT'} ` +
        `for tool call(s) ${waiting.map((c) => `${c.id} (${c.name})`).join(', ')} of reply ${pending.replyId}; ` +
        'answer them before sending a new message.',
    );
  }
  const reducer = createReplyReducer({ initial: pending.message, source: agentName });
  const origin = new ReplyContext(agentName, pending.replyId, sessionId, new AbortController().signal, {});
  for (const call of pending.confirm) {
    for (const e of resultEvents(
      origin,
      call,
      'denied',
      'The user sent a new message instead of confirming this call.',
    ))
      reducer.apply(e);
  }
  for (const call of [...pending.external, ...notStarted]) {
    for (const e of resultEvents(
      origin,
      call,
      'interrupted',
      'The user sent a new message before this call was executed.',
    )) {
      reducer.apply(e);
    }
  }
  return {
    message: reducer.message(),
    notice: (ctx) =>
      ctx.event('CUSTOM', {
        name: 'pending_calls_rejected',
        value: { replyId: pending.replyId, toolCallIds: waiting.map((c) => c.id) },
      }),
  };
}
