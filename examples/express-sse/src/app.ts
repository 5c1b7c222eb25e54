/**
 * rxscope in Express 5: `POST /chat {"message"}` with an `x-session-id` header runs one reply of
 * that session's agent and streams its events as SSE with `createAgentSseHandler`, which is a
 * plain `(req, res)` handler, so Express takes it as is; `express.json()` parses the body first
 * and the handler reads `req.body`. Every session has its own agent (its own conversation):
 * `AgentSessions` builds it on the session's first message.
 */
import type { IncomingMessage } from 'node:http';
import { Agent, type ChatModel } from '@rxscope/core';
import { AgentSessions, createAgentSseHandler, HttpError } from '@rxscope/core/node';
import express, { type Express } from 'express';

/** What a session id looks like: unguessable (the client makes it with `crypto.randomUUID()`). */
const SESSION_ID = /^[A-Za-z0-9_-]{16,64}$/;

function sessionIdOf(req: IncomingMessage): string {
  const id = req.headers['x-session-id'];
  if (typeof id !== 'string' || !SESSION_ID.test(id))
    throw new HttpError(
      400,
      'Send the conversation\'s "x-session-id": 16 to 64 letters, digits, "_" or "-".',
      'invalid_session_id',
    );
  return id;
}

export function createApp(model: ChatModel): { app: Express; sessions: AgentSessions } {
  const sessions = new AgentSessions({
    // An Agent is one conversation: one per session, never one for every client.
    agent: (sessionId) => new Agent({ name: 'assistant', sysPrompt: 'You are concise.', model, sessionId }),
  });
  const app = express();
  app.post(
    '/chat',
    express.json(),
    createAgentSseHandler({
      heartbeatMs: 15_000,
      sessionId: sessionIdOf,
      events: async (_req, { body, sessionId }) => {
        const { message } = ((await body()) ?? {}) as { message?: unknown };
        if (typeof message !== 'string' || !message)
          throw new HttpError(400, 'The body needs "message": a non-empty string.', 'invalid_body');
        const agent = await sessions.agent(sessionId!);
        return agent.reply(message); // the client going away cancels this reply
      },
    }),
  );
  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  return { app, sessions };
}
