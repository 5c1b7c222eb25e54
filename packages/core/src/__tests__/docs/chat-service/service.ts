import { createServer, type IncomingMessage, type Server } from 'node:http';
import { defer, ignoreElements, merge, type Observable, takeWhile } from 'rxjs';
import { z } from 'zod';
import { Agent, type AgentEvent, type ChatModel, defineTool, type ReplyInput } from '../../../index.js';
import { AgentSessions, createAgentSseHandler, HttpError } from '../../../node/index.js';

export const refunds: string[] = []; // stands in for your payment system

const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order',
  input: z.object({ orderId: z.string(), amount: z.number().positive() }),
  needsApproval: ({ amount }) => amount > 20, // small refunds go through, larger ones ask a person
  execute: ({ orderId, amount }) => {
    refunds.push(`${orderId}:${amount}`);
    return `Refunded ${amount} EUR on ${orderId}.`;
  },
});

/** The chat service: POST /sessions/:id/messages {message} and /sessions/:id/confirmations {results}. */
export function chatService(model: ChatModel): { server: Server; sessions: AgentSessions } {
  const sessions = new AgentSessions({
    // One Agent per session: an Agent is one conversation. Never share one Agent between users.
    agent: (sessionId) =>
      new Agent({ name: 'support', sysPrompt: 'You are a support agent.', model, tools: [refund], sessionId }),
  });

  /**
   * Starts a reply of the session and streams it until it ends (a reply waiting for approval ends
   * too). A client that leaves only stops listening: the reply runs on, its events kept in the log.
   */
  const replyOf = (sessionId: string, input: ReplyInput): Observable<AgentEvent> =>
    merge(
      sessions.events(sessionId), // listen first, then start: no event of the reply is missed
      defer(() => sessions.start(sessionId, input)).pipe(ignoreElements()), // fails with a 409 while one runs
    ).pipe(takeWhile((event) => !(event.type === 'REPLY_END' && event.source === 'support'), true));

  const handler = createAgentSseHandler({
    events: async (req, { body }) => {
      const { sessionId, action } = route(req);
      const json = (await body()) as { message?: unknown; results?: unknown } | undefined;
      if (action === 'messages' && typeof json?.message === 'string') return replyOf(sessionId, json.message);
      if (action === 'confirmations' && Array.isArray(json?.results)) {
        // The agent checks the answers against the calls it waits for (409 when they do not fit).
        return replyOf(sessionId, { type: 'USER_CONFIRM_RESULT', results: json.results });
      }
      const needs = action === 'messages' ? '{"message": "..."}' : '{"results": [{"toolCallId", "confirmed"}]}';
      throw new HttpError(400, `POST /sessions/${sessionId}/${action} takes ${needs}.`, 'invalid_body');
    },
  });
  return { server: createServer((req, res) => void handler(req, res)), sessions };
}

/** `/sessions/:id/(messages|confirmations)`, else a 404. */
function route(req: IncomingMessage): { sessionId: string; action: string } {
  const match = /^\/sessions\/([\w-]{1,64})\/(messages|confirmations)$/.exec(req.url ?? '');
  if (req.method !== 'POST' || !match) throw new HttpError(404, 'Not found.', 'not_found');
  return { sessionId: match[1]!, action: match[2]! };
}
