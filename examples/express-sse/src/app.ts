/**
 * rxscope in Express 5: `POST /chat {"message"}` runs one reply and streams its events as SSE
 * with `createAgentSseHandler`, which is a plain `(req, res)` handler, so Express takes it as
 * is; `express.json()` parses the body first and the handler reads `req.body`.
 */
import { Agent, type ChatModel } from '@rxscope/core';
import { createAgentSseHandler, HttpError } from '@rxscope/core/node';
import express, { type Express } from 'express';

export function createApp(model: ChatModel): { app: Express; agent: Agent } {
  const agent = new Agent({ name: 'assistant', sysPrompt: 'You are concise.', model });
  const app = express();
  app.post(
    '/chat',
    express.json(),
    createAgentSseHandler({
      heartbeatMs: 15_000,
      events: async (_req, { body }) => {
        const { message } = ((await body()) ?? {}) as { message?: unknown };
        if (typeof message !== 'string' || !message)
          throw new HttpError(400, 'The body needs "message": a non-empty string.', 'invalid_body');
        return agent.reply(message); // the client going away cancels this reply
      },
    }),
  );
  app.get('/health', (_req, res) => {
    res.json({ ok: true, busy: agent.busy });
  });
  return { app, agent };
}
