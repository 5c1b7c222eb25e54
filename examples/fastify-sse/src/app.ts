/**
 * rxscope in Fastify 5: `POST /chat {"message"}` runs one reply and streams its events as SSE.
 * Fastify parses the body and owns the response, so the route hijacks the reply and hands the
 * raw Node response to `streamAgentEvents` (heartbeats, back-pressure, cancel on disconnect,
 * errors before the stream as HTTP errors).
 */
import { Agent, type ChatModel } from '@rxscope/core';
import { HttpError, streamAgentEvents } from '@rxscope/core/node';
import Fastify, { type FastifyInstance } from 'fastify';
import { defer } from 'rxjs';

export function createApp(model: ChatModel): { app: FastifyInstance; agent: Agent } {
  const agent = new Agent({ name: 'assistant', sysPrompt: 'You are concise.', model });
  const app = Fastify();
  app.post('/chat', async (request, reply) => {
    reply.hijack(); // from here on the raw response is ours
    const events$ = defer(() => {
      const { message } = (request.body ?? {}) as { message?: unknown };
      if (typeof message !== 'string' || !message)
        throw new HttpError(400, 'The body needs "message": a non-empty string.', 'invalid_body');
      return agent.reply(message); // the client going away cancels this reply
    });
    await streamAgentEvents(reply.raw, events$, { heartbeatMs: 15_000 });
  });
  app.get('/health', () => ({ ok: true, busy: agent.busy }));
  return { app, agent };
}
