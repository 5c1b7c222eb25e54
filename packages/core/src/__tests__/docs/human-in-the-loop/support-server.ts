import { createServer, type IncomingMessage, type Server } from 'node:http';
import { z } from 'zod';
import { Agent, defineTool, type ChatModel, type ReplyInput, type SessionStore } from '../../../index.js';

export const refunds: string[] = [];
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

function makeAgent(sessionId: string, store: SessionStore, model: ChatModel): Agent {
  // An Agent is one conversation: this one is the session's, loaded from the store.
  return new Agent({
    name: 'support',
    sysPrompt: 'You are a support agent.',
    model,
    tools: [refund],
    store,
    sessionId,
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

/** POST /sessions/:id with {message} or {confirm: results}: streams the reply as NDJSON. */
export function chatServer(store: SessionStore, model: ChatModel): Server {
  return createServer((req, res) => {
    void (async () => {
      const sessionId = decodeURIComponent(req.url!.split('/')[2]!);
      const body = JSON.parse(await readBody(req)) as {
        message?: string;
        confirm?: { toolCallId: string; confirmed: boolean; reason?: string }[];
      };
      const input: ReplyInput = body.confirm ? { type: 'USER_CONFIRM_RESULT', results: body.confirm } : body.message!;
      const agent = makeAgent(sessionId, store, model); // a fresh agent per request: state comes from the store
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const subscription = agent.reply(input).subscribe({
        next: (event) => res.write(`${JSON.stringify(event)}\n`),
        error: (err: unknown) => res.end(`${JSON.stringify({ type: 'REFUSED', message: (err as Error).message })}\n`),
        complete: () => res.end(),
      });
      res.on('close', () => subscription.unsubscribe()); // the client went away: cancel the reply
    })();
  });
}
