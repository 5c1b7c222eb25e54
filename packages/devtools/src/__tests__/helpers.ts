import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, defineTool, type Middleware } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { z } from 'zod';
import type { DevtoolsHandler } from '../node/index.js';

/** A plain node:http server on loopback running `handler` (404 for what it passes on). */
export async function listen(
  handler: DevtoolsHandler,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) =>
    handler(req, res, () => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('app: not found');
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an order up.',
  input: z.object({ orderId: z.string() }),
  readOnly: true,
  execute: ({ orderId }) => `Order ${orderId}: delivered.`,
});

/** An agent whose scripted model calls `lookup` once, then answers. */
export function lookupAgent(middlewares: Middleware[], name = 'bot'): Agent {
  return new Agent({
    name,
    model: new ScriptedChatModel([
      { toolCalls: [{ name: 'lookup', input: { orderId: 'A-1' } }] },
      { text: ['It ', 'was delivered.'] },
    ]),
    tools: [lookup],
    middlewares,
  });
}

/** Reads SSE messages from a fetch response until `until` says stop. */
export async function readSse(
  response: Response,
  until: (messages: { event: string; data: unknown }[]) => boolean,
): Promise<{ event: string; data: unknown }[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const messages: { event: string; data: unknown }[] = [];
  let buffer = '';
  while (!until(messages)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) messages.push({ event, data: JSON.parse(data) });
    }
  }
  await reader.cancel();
  return messages;
}
