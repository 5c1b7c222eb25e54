// The browser-style flow of docs/human-in-the-loop.md, run for real: every HTTP request builds a
// fresh Agent from the session store, so the confirmation arrives as a new request (as it would
// from a browser, or after a server restart) and still continues the same reply.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Agent, defineTool, type AgentEvent, type ChatModel, type ReplyInput, type SessionStore } from '../index.js';
import { FileSessionStore } from '../node/index.js';
import { ScriptedChatModel } from '../testing/index.js';

// --- docs example start ---
const refunds: string[] = [];
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
  return new Agent({
    name: 'support',
    sysPrompt: 'You are a support agent.',
    model,
    tools: [refund],
    store,
    sessionId,
  });
}

/** POST /sessions/:id with {message} or {confirm: results}: streams the reply as NDJSON. */
function chatServer(store: SessionStore, model: ChatModel): Server {
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
// --- docs example end ---

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

/** What the browser does: POST, read the NDJSON stream, return the events. */
async function post(base: string, sessionId: string, body: unknown): Promise<AgentEvent[]> {
  const response = await fetch(`${base}/sessions/${encodeURIComponent(sessionId)}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  return (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AgentEvent);
}

describe('human in the loop over HTTP (docs example)', () => {
  let dir: string;
  let server: Server;
  let base: string;
  let model: ScriptedChatModel;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rxscope-hitl-'));
    refunds.length = 0;
    model = new ScriptedChatModel([
      {
        text: 'Let me refund that.',
        toolCalls: [{ id: 'r1', name: 'refund', input: { orderId: 'A-17', amount: 80 } }],
      },
      { text: 'Done: 80 EUR refunded.' },
    ]);
    server = chatServer(new FileSessionStore({ dir }), model);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((r) => server.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  it('asks, then continues the same reply when the confirmation arrives as a new request', async () => {
    const first = await post(base, 'customer-1', { message: 'Refund order A-17 please (80 EUR)' });
    const ask = first.find((e) => e.type === 'REQUIRE_USER_CONFIRM');
    expect(ask).toMatchObject({ toolCalls: [{ id: 'r1', name: 'refund', input: { orderId: 'A-17', amount: 80 } }] });
    expect(first[first.length - 1]).toMatchObject({ type: 'REPLY_END', finishReason: 'awaiting_confirmation' });
    expect(refunds).toEqual([]);

    // A wrong answer is refused and changes nothing.
    const refused = await post(base, 'customer-1', { confirm: [{ toolCallId: 'nope', confirmed: true }] });
    expect(refused).toEqual([
      { type: 'REFUSED', message: expect.stringContaining('unknown tool call id "nope"') as string },
    ]);

    const second = await post(base, 'customer-1', { confirm: [{ toolCallId: 'r1', confirmed: true }] });
    expect(second[0]).toMatchObject({ type: 'REPLY_START', replyId: first[0]!.replyId });
    expect(second[second.length - 1]).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(refunds).toEqual(['A-17:80']);
    const text = second.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('');
    expect(text).toBe('Done: 80 EUR refunded.');
  });
});
