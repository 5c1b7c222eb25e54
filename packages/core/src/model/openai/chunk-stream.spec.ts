// The adapter's streamed-body reader: server-sent events as the wire delivers them (split at any
// byte, CRLF, comments, a missing last blank line), what ends a stream, and what fails it; then
// over a real HTTP server, that a finished stream leaves its connection for the next request and
// a server holding the response open after `[DONE]` does not hang the call.
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { lastValueFrom, toArray } from 'rxjs';
import { createMsg } from '../../message/msg.js';
import { toModelError } from '../to-model-error.js';
import { readChunks } from './chunk-stream.js';
import { OpenAIChatModel } from './openai-chat-model.js';

const chunk = (content: string, extra: Record<string, unknown> = {}) => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  model: 'm',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
  ...extra,
});
const sse = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

/** A body of `text` delivered in pieces of `size` bytes; `cancelled` tells whether the reader cancelled it. */
function pieces(text: string, size: number, options: { close?: boolean; then?: string } = {}) {
  const bytes = new TextEncoder().encode(text);
  const state = { cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.slice(i, i + size));
      if (options.close !== false) controller.close();
    },
    pull(controller) {
      // Pulled once the first pieces are read: what the server sends later.
      if (options.then) controller.enqueue(new TextEncoder().encode(options.then));
      options = { ...options, then: undefined };
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { response: new Response(body), state };
}

const never = new AbortController().signal;
const contents = async (text: string, size: number) => {
  const seen: string[] = [];
  const { response } = pieces(text, size);
  await readChunks(response, never, (c) => seen.push(c.choices[0]?.delta.content ?? ''));
  return seen;
};

describe('readChunks', () => {
  const wire = [chunk('Grüß'), chunk(' 🌍 '), chunk('done')].map(sse).join('') + 'data: [DONE]\n\n';

  it('delivers every chunk in order whatever the byte boundaries (inside a multi-byte character too)', async () => {
    for (const size of [1, 2, 3, 5, 7, 64, 10_000]) {
      expect(await contents(wire, size)).toEqual(['Grüß', ' 🌍 ', 'done']);
    }
  });

  it('reads CRLF line ends, comments, other fields and a last event without its blank line', async () => {
    const text =
      ': keep-alive\r\n\r\n' +
      `id: 1\r\ndata: ${JSON.stringify(chunk('a'))}\r\n\r\n` +
      `retry: 1000\r\ndata: ${JSON.stringify(chunk('b'))}\r\n\r\n` +
      `data: ${JSON.stringify(chunk('c'))}`;
    expect(await contents(text, 4)).toEqual(['a', 'b', 'c']);
  });

  it('stops at [DONE]: later events are ignored', async () => {
    expect(await contents(sse(chunk('a')) + 'data: [DONE]\n\n' + sse(chunk('late')), 8)).toEqual(['a']);
  });

  it('cancels a body that sends more after [DONE]', async () => {
    const more = pieces(sse(chunk('a')) + 'data: [DONE]\n\n', 1000, { close: false, then: sse(chunk('late')) });
    await readChunks(more.response, never, () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(more.state.cancelled).toBe(true);
  });

  it('fails on malformed JSON with a malformed_response naming the data, and cancels the body', async () => {
    const bad = pieces(sse(chunk('a')) + 'data: {"choices": [\n\n', 1000, { close: false });
    const seen: unknown[] = [];
    const error = await readChunks(bad.response, never, (c) => seen.push(c)).catch((e: unknown) => e);
    expect(seen).toHaveLength(1);
    expect(toModelError(error)).toMatchObject({ code: 'malformed_response', retryable: true });
    expect(String(error)).toContain('{\\"choices\\": [');
    expect(bad.state.cancelled).toBe(true);
  });

  it('fails on an event whose JSON is not an object, with a malformed_response', async () => {
    for (const data of ['null', '42', '"text"']) {
      const { response } = pieces(`data: ${data}\n\n`, 1000);
      const error = await readChunks(response, never, () => undefined).catch((e: unknown) => e);
      expect(toModelError(error)).toMatchObject({ code: 'malformed_response', retryable: true });
    }
  });

  it('fails on an error event and on a payload carrying an error, with the server message', async () => {
    const named = pieces(`event: error\ndata: ${JSON.stringify({ error: { message: 'overloaded' } })}\n\n`, 1000);
    await expect(readChunks(named.response, never, () => undefined)).rejects.toThrow('overloaded');
    const inline = pieces(sse({ error: { message: 'context too long', code: 'context_length_exceeded' } }), 1000);
    await expect(readChunks(inline.response, never, () => undefined)).rejects.toThrow('context too long');
  });

  it('fails with the signal’s reason when aborted mid-stream, and cancels the body', async () => {
    const open = pieces(sse(chunk('a')), 1000, { close: false });
    const controller = new AbortController();
    const reading = readChunks(open.response, controller.signal, () =>
      controller.abort(new Error('stopped by the caller')),
    );
    await expect(reading).rejects.toThrow('stopped by the caller');
    expect(open.state.cancelled).toBe(true);
  });

  it('fails with the signal’s reason when aborted while waiting for data, even on a body not tied to the signal', async () => {
    const open = pieces(sse(chunk('a')), 1000, { close: false });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('interrupted')), 10);
    await expect(readChunks(open.response, controller.signal, () => undefined)).rejects.toThrow('interrupted');
    expect(open.state.cancelled).toBe(true);
  });

  it('refuses a streamed response without a body', async () => {
    await expect(readChunks(new Response(null), never, () => undefined)).rejects.toMatchObject({
      code: 'malformed_response',
    });
  });
});

/**
 * A plain HTTP server streaming one fixed answer. The body ends `endDelayMs` after `[DONE]` (as the
 * end can arrive in a later packet); `hold` keeps each response open.
 */
async function sseServer(options: { hold?: boolean; endDelayMs?: number } = {}) {
  const sockets = new Set<Socket>();
  let connections = 0;
  const held = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse(chunk('hi')));
      res.write(sse({ ...chunk(''), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
      res.write('data: [DONE]\n\n');
      if (options.hold) {
        held.add(res);
        res.on('close', () => held.delete(res));
      } else setTimeout(() => res.end(), options.endDelayMs ?? 0);
    });
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    connections: () => connections,
    /** Held responses whose connection the client has not closed. */
    heldOpen: () => held.size,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

const request = {
  messages: [createMsg('user', 'hi')],
  tools: [],
  toolChoice: 'auto' as const,
  options: {},
  signal: never,
};

describe('OpenAIChatModel streaming over HTTP', () => {
  it('keeps its connections for the next calls (a read to the end of the body, no cancel)', async () => {
    const server = await sseServer({ endDelayMs: 20 });
    try {
      const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url });
      for (let i = 0; i < 10; i++) {
        const events = await lastValueFrom(model.stream(request).pipe(toArray()));
        expect(events.at(-1)).toMatchObject({ type: 'MODEL_CALL_END', finishReason: 'stop' });
        await new Promise((resolve) => setTimeout(resolve, 40)); // past the end of the body
      }
      // The client may open a second connection while the first is being handed back to its pool;
      // a body cancelled at [DONE], before its end arrived, would cost a connection per call.
      expect(server.connections()).toBeLessThanOrEqual(2);
    } finally {
      await server.close();
    }
  });

  it('ends the call at [DONE] and closes the connection of a server that holds the response open', async () => {
    const server = await sseServer({ hold: true });
    try {
      const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url });
      const events = await lastValueFrom(model.stream(request).pipe(toArray()));
      expect(events.map((e) => e.type)).toContain('TEXT_BLOCK_DELTA');
      expect(events.at(-1)).toMatchObject({ type: 'MODEL_CALL_END', finishReason: 'stop' });
      const deadline = Date.now() + 3000; // the body is given a second to end
      while (server.heldOpen() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(server.heldOpen()).toBe(0);
    } finally {
      await server.close();
    }
  });
});
