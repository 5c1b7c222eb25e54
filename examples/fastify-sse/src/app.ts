/**
 * rxscope in Fastify 5: `POST /chat {"message"}` with an `x-session-id` header runs one reply of
 * that session's agent and streams its events as SSE. Fastify parses the body and owns the
 * response, so the route hijacks the reply and hands the raw Node response to `streamAgentEvents`
 * (heartbeats, back-pressure, cancel on disconnect, errors before the stream as HTTP errors).
 * Every session has its own agent (its own conversation), made on the session's first message.
 */
import { Agent, type ChatModel } from '@rxscope/core';
import { HttpError, streamAgentEvents } from '@rxscope/core/node';
import Fastify, { type FastifyInstance } from 'fastify';
import { defer } from 'rxjs';

/** What a session id looks like: unguessable (the client makes it with `crypto.randomUUID()`). */
const SESSION_ID = /^[A-Za-z0-9_-]{16,64}$/;

export function createApp(model: ChatModel): { app: FastifyInstance; agentOf: (sessionId: string) => Agent } {
  const agents = new Map<string, Agent>();
  const agentOf = (sessionId: string): Agent => {
    let agent = agents.get(sessionId);
    if (!agent) {
      // An Agent is one conversation: one per session, never one for every client.
      agent = new Agent({ name: 'assistant', sysPrompt: 'You are concise.', model, sessionId });
      agents.set(sessionId, agent);
    }
    return agent;
  };
  const app = Fastify();
  app.post('/chat', async (request, reply) => {
    reply.hijack(); // from here on the raw response is ours
    const sessionId = request.headers['x-session-id'];
    const valid = typeof sessionId === 'string' && SESSION_ID.test(sessionId);
    const events$ = defer(() => {
      if (!valid)
        throw new HttpError(
          400,
          'Send the conversation\'s "x-session-id": 16 to 64 letters, digits, "_" or "-".',
          'invalid_session_id',
        );
      const { message } = (request.body ?? {}) as { message?: unknown };
      if (typeof message !== 'string' || !message)
        throw new HttpError(400, 'The body needs "message": a non-empty string.', 'invalid_body');
      return agentOf(sessionId).reply(message); // the client going away cancels this reply
    });
    await streamAgentEvents(reply.raw, events$, { heartbeatMs: 15_000, ...(valid ? { sessionId } : {}) });
  });
  app.get('/health', () => ({ ok: true, sessions: agents.size }));
  return { app, agentOf };
}
