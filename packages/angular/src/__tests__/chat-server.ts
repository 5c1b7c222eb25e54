// A real rxscope SSE endpoint on loopback for the chat's tests: createAgentSseHandler over one
// Agent (one conversation) with a scripted model, answering the chat's request bodies as
// AgentChatRequest documents them. Records each body and how each response ended.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, defineTool, jsonSchemaInput, type ChatModel } from '@rxscope/core';
import { createAgentSseHandler, type StreamOutcome } from '@rxscope/core/node';
import type { AgentChatRequest } from '../agent-chat-request.js';

export interface ChatServer {
  readonly url: string;
  readonly agent: Agent;
  readonly bodies: AgentChatRequest[];
  readonly outcomes: StreamOutcome[];
  readonly refunds: string[];
  close(): Promise<void>;
}

const orderInput = jsonSchemaInput<{ orderId: string }>({
  type: 'object',
  properties: { orderId: { type: 'string' } },
  required: ['orderId'],
});

export async function startChatServer(model: ChatModel): Promise<ChatServer> {
  const refunds: string[] = [];
  const refund = defineTool({
    name: 'refund_order',
    description: 'Refunds an order.',
    input: orderInput,
    needsApproval: true,
    execute: (input) => {
      refunds.push(input.orderId);
      return `Refunded order ${input.orderId}.`;
    },
  });
  // Shares the order it tracks with the UI: a snapshot, then a JSON Patch.
  const track = defineTool({
    name: 'track_order',
    description: 'Tracks an order.',
    input: orderInput,
    execute: (input, toolCtx) => {
      toolCtx.sharedState?.set({ order: input.orderId, status: 'packed' });
      toolCtx.sharedState?.patch([{ op: 'replace', path: '/status', value: 'shipped' }]);
      return `Order ${input.orderId} has shipped.`;
    },
  });
  const agent = new Agent({ name: 'assistant', model, tools: [refund, track] });
  const bodies: AgentChatRequest[] = [];
  const outcomes: StreamOutcome[] = [];
  const handler = createAgentSseHandler({
    sessionId: 'chat',
    events: async (_req, { body }) => {
      const request = (await body()) as AgentChatRequest;
      bodies.push(request);
      if ('confirmations' in request)
        return agent.reply({ type: 'USER_CONFIRM_RESULT', results: request.confirmations });
      if (request.regenerate) {
        const lastUser = [...agent.context].reverse().find((m) => m.role === 'user');
        if (lastUser) agent.rewind({ before: lastUser.id });
      }
      return agent.reply(request.message);
    },
  });
  const server: Server = createServer((req, res) => {
    void handler(req, res).then((outcome) => outcomes.push(outcome));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`,
    agent,
    bodies,
    outcomes,
    refunds,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Waits until `check` holds (polling), failing with `what` after 5 s. */
export async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 5_000) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
