/**
 * `POST /api/sessions/:id/chat`: one reply per request, streamed as the response and cancelled
 * when the client goes away — the protocol of `@rxscope/angular`'s `'sse'` transport. The body
 * is `{message}`, `{message, regenerate: true}` (the last exchange is answered anew) or
 * `{confirmations}` (the answers to the calls of `REQUIRE_USER_CONFIRM`).
 */
import type { Agent, AgentEvent, Tool } from '@rxscope/core';
import { HttpError } from '@rxscope/core/node';
import type { Observable } from 'rxjs';
import { checkConfirmations } from './confirmations.js';

export function chatReply(agent: Agent, body: unknown, tools: readonly Tool[]): Observable<AgentEvent> {
  const request = (body ?? {}) as { message?: unknown; regenerate?: unknown; confirmations?: unknown };
  if (request.confirmations !== undefined) {
    const { results, replyId } = checkConfirmations({ results: request.confirmations }, agent.pending, tools);
    return agent.reply({ type: 'USER_CONFIRM_RESULT', results, ...(replyId ? { replyId } : {}) });
  }
  if (typeof request.message !== 'string' || !request.message.trim())
    throw new HttpError(
      400,
      'The body needs "message" (a non-empty string), or "confirmations" answering the pending tool calls.',
      'invalid_body',
    );
  if (request.regenerate === true) {
    // Answer the last user message anew: the conversation goes back to just before it.
    const lastUser = [...agent.context].reverse().find((m) => m.role === 'user');
    if (lastUser) agent.rewind({ before: lastUser.id });
  }
  return agent.reply(request.message);
}
