// A throwaway stand-in for examples/node-service (same HTTP API, canned events) used until the
// real service exists. Serves the built app from `staticDir`.
import { type AgentEvent, createEvent } from '@rxscope/core';
import { createReadStream, existsSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';

export interface FakeService {
  readonly url: string;
  readonly cancelled: string[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

export async function startFakeService(staticDir: string): Promise<FakeService> {
  const clients = new Set<ServerResponse>();
  const cancelled: string[] = [];
  let running: { replyId: string; stop: () => void } | undefined;
  let pending: { replyId: string; callId: string } | undefined;
  let n = 0;
  const send = (e: AgentEvent) => {
    for (const c of clients) c.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  const run = (replyId: string, script: (o: { replyId: string; source: string }, stopped: () => boolean) => Promise<void>) => {
    let stop = false;
    running = { replyId, stop: () => (stop = true) };
    void script({ replyId, source: 'assistant' }, () => stop).finally(() => (running = undefined));
  };
  const text = async (o: { replyId: string; source: string }, words: string[], ms: number, stopped: () => boolean) => {
    send(createEvent('MODEL_CALL_START', { model: 'offline' }, o));
    send(createEvent('TEXT_BLOCK_START', { blockId: `b${++n}` }, o));
    const blockId = `b${n}`;
    for (const w of words) {
      if (stopped()) break;
      send(createEvent('TEXT_BLOCK_DELTA', { blockId, delta: w }, o));
      await sleep(ms);
    }
    send(createEvent('TEXT_BLOCK_END', { blockId }, o));
    send(createEvent('MODEL_CALL_END', { model: 'offline', usage: { inputTokens: 20, outputTokens: words.length }, finishReason: 'stop' }, o));
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: Error) => {
      res.statusCode = 500;
      res.end(err.message);
    });
  });
  const body = async (req: IncomingMessage) => {
    let s = '';
    for await (const c of req) s += c;
    return s ? (JSON.parse(s) as Record<string, unknown>) : {};
  };
  const json = (res: ServerResponse, status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = new URL(req.url!, 'http://x').pathname;
    if (req.method === 'POST' && path === '/api/sessions') return json(res, 201, { sessionId: 's1' });
    if (req.method === 'GET' && path.endsWith('/events')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('retry: 1000\n\n');
      clients.add(res);
      req.on('close', () => clients.delete(res));
      return;
    }
    if (req.method === 'POST' && path.endsWith('/messages')) {
      const { text: message } = (await body(req)) as { text: string };
      const replyId = `reply_${++n}`;
      json(res, 202, { sessionId: 's1', replyId });
      run(replyId, async (o, stopped) => {
        send(createEvent('REPLY_START', {}, o));
        if (message.includes('refund')) {
          const callId = `call_${++n}`;
          send(createEvent('MODEL_CALL_START', { model: 'offline' }, o));
          send(createEvent('TOOL_CALL_START', { blockId: `tc${n}`, toolCallId: callId, name: 'refund_order' }, o));
          send(createEvent('TOOL_CALL_DELTA', { blockId: `tc${n}`, delta: '{"orderId":"A-17","amount":80}' }, o));
          send(createEvent('TOOL_CALL_END', { blockId: `tc${n}` }, o));
          send(createEvent('MODEL_CALL_END', { model: 'offline', usage: { inputTokens: 40, outputTokens: 12 }, finishReason: 'tool_calls' }, o));
          send(createEvent('REQUIRE_USER_CONFIRM', { toolCalls: [{ id: callId, name: 'refund_order', input: { orderId: 'A-17', amount: 80 } }] }, o));
          pending = { replyId, callId };
          send(createEvent('REPLY_END', { finishReason: 'awaiting_confirmation' }, o));
          return;
        }
        const story = message.includes('story');
        const words = story ? Array.from({ length: 200 }, (_, i) => `word${i} `) : `You said: "${message}"`.split(/(?= )/);
        await text(o, words, story ? 100 : 40, stopped);
        send(createEvent('REPLY_END', { finishReason: stopped() ? 'interrupted' : 'completed' }, o));
      });
      return;
    }
    if (req.method === 'POST' && path.endsWith('/confirmations')) {
      const { results } = (await body(req)) as { results: { toolCallId: string; confirmed: boolean }[] };
      if (!pending) return json(res, 409, { error: { name: 'Conflict', message: 'nothing waits' } });
      const { replyId, callId } = pending;
      pending = undefined;
      json(res, 202, { sessionId: 's1', replyId });
      const ok = results[0]!.confirmed;
      run(replyId, async (o, stopped) => {
        send(createEvent('REPLY_START', {}, o));
        send(createEvent('USER_CONFIRM_RESULT', { results }, o));
        send(createEvent('TOOL_RESULT_START', { blockId: 'r1', toolCallId: callId, name: 'refund_order' }, o));
        await sleep(100);
        const output = ok ? 'Refunded 80 EUR on A-17.' : 'The user rejected this call.';
        send(createEvent('TOOL_RESULT_END', { blockId: 'r1', toolCallId: callId, status: ok ? 'success' : 'denied', output: [{ type: 'text', text: output }] }, o));
        await text(o, (ok ? 'Done: refunded 80 EUR on order A-17.' : 'OK, I did not refund order A-17.').split(/(?= )/), 40, stopped);
        send(createEvent('REPLY_END', { finishReason: 'completed' }, o));
      });
      return;
    }
    if (req.method === 'POST' && path.endsWith('/cancel')) {
      const r = running;
      if (r) {
        cancelled.push(r.replyId);
        r.stop();
      }
      return json(res, 200, { cancelled: !!r });
    }
    const file = join(staticDir, path === '/' ? 'index.html' : path);
    const target = existsSync(file) ? file : join(staticDir, 'index.html');
    res.writeHead(200, { 'content-type': TYPES[extname(target)] ?? 'application/octet-stream' });
    createReadStream(target).pipe(res);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    cancelled,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of clients) c.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
