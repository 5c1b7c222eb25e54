/**
 * rxscope on Hono, for React's `useChat`: `POST /api/chat` is `createUIMessageStreamHandler` (the
 * AI SDK's UI message stream, one agent per chat id), `POST /api/events` streams a reply as
 * rxscope's own SSE with `toEventStreamResponse`, and the built React page is served from
 * `web`. Both handlers are fetch-style (`Request` in, `Response` out), so Hono takes them as they
 * are (`c.req.raw`); a client that goes away cancels its reply.
 */
import { serveStatic } from '@hono/node-server/serve-static';
import { Agent, defineTool, toEventStreamResponse, type ChatModel } from '@rxscope/core';
import { createUIMessageStreamHandler } from '@rxscope/core/ui-message-stream';
import { Hono } from 'hono';
import { z } from 'zod';

/** The shop's tools: a lookup that reports progress and shares what it found, a refund that needs approval. */
export function shopTools() {
  const lookup = defineTool({
    name: 'lookup_order',
    description: 'Looks an order up by its id',
    input: z.object({ order: z.string() }),
    execute: ({ order }, toolCtx) => {
      toolCtx.emit({ message: `looking up ${order}`, progress: 1, total: 1 });
      toolCtx.sharedState?.set({ order, status: 'shipped' });
      return { order, status: 'shipped' };
    },
  });
  const refund = defineTool({
    name: 'refund_order',
    description: 'Refunds an order',
    input: z.object({ order: z.string() }),
    needsApproval: true,
    execute: ({ order }, toolCtx) => {
      toolCtx.sharedState?.patch([{ op: 'add', path: '/refunded', value: order }]);
      return `Refunded ${order}`;
    },
  });
  return [lookup, refund];
}

export function createApp(model: ChatModel, webRoot?: string): Hono {
  const tools = shopTools();
  const agents = new Map<string, Agent>();
  // An Agent is one conversation: one per chat id.
  const agentFor = (id: string) => {
    let agent = agents.get(id);
    if (!agent)
      agents.set(
        id,
        (agent = new Agent({ name: 'shop', sysPrompt: 'You are a shop assistant.', model, tools, sessionId: id })),
      );
    return agent;
  };
  const chat = createUIMessageStreamHandler({ agent: agentFor });
  const app = new Hono();
  app.post('/api/chat', (c) => chat(c.req.raw));
  app.post('/api/events', async (c) => {
    const { chatId, message } = (await c.req.json().catch(() => ({}))) as { chatId?: unknown; message?: unknown };
    if (typeof chatId !== 'string' || typeof message !== 'string')
      return c.json(
        { error: { code: 'invalid_request', message: 'Send {"chatId": string, "message": string}.' } },
        400,
      );
    return toEventStreamResponse(agentFor(chatId).reply(message));
  });
  if (webRoot) app.use('/*', serveStatic({ root: webRoot }));
  return app;
}
