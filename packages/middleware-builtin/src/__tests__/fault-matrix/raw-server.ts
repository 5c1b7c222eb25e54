// A bare HTTP server for the wire faults the OpenAI-compatible test server does not script: a
// 429 without Retry-After, a connection reset before the first byte, and a plain JSON completion
// answering a streamed request. Every request after the faulted ones gets a short healthy stream.
/// <reference types="node" />
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A wire fault only this server produces. */
export type RawFault = 'rate_limit_no_retry_after' | 'reset_before_first_byte' | 'json_to_stream';

/** The server, its URL and how many chat requests it received. */
export interface RawFaultServer {
  readonly url: string;
  requests(): number;
  close(): Promise<void>;
}

const chunk = (delta: object, finish: string | null) =>
  `data: ${JSON.stringify({ id: 'raw-1', object: 'chat.completion.chunk', created: 0, model: 'gpt-test', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

function healthyStream(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(chunk({ role: 'assistant', content: text }, null) + chunk({}, 'stop') + 'data: [DONE]\n\n');
}

function answerFault(fault: RawFault, req: IncomingMessage, res: ServerResponse): void {
  switch (fault) {
    case 'rate_limit_no_retry_after':
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: 'Rate limit reached for requests.', type: 'requests', code: 'rate_limit_exceeded' },
        }),
      );
      return;
    case 'reset_before_first_byte':
      req.socket.destroy();
      return;
    case 'json_to_stream':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'raw-json',
          object: 'chat.completion',
          created: 0,
          model: 'gpt-test',
          choices: [{ index: 0, message: { role: 'assistant', content: 'not streamed' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        }),
      );
      return;
  }
}

/** Starts a server whose first `times` chat requests get `fault`, the rest a healthy `recovered` stream. */
export async function startRawFaultServer(fault: RawFault, times = 1): Promise<RawFaultServer> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      if (count <= times) answerFault(fault, req, res);
      else healthyStream(res, 'recovered');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
