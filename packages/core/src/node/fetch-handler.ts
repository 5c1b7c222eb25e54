/// <reference types="node" />
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * A Node `http` handler (Express, Fastify's raw routes, `createServer`) from a fetch-style one
 * (`(request: Request) => Promise<Response>`, such as `createUIMessageStreamHandler`): the
 * request becomes a Web `Request` (its body streamed), the `Response` is written back as it
 * streams, and a client that goes away cancels the response body (which cancels the reply).
 *
 * @example
 * ```ts
 * import { createUIMessageStreamHandler } from '@rxscope/core/ui-message-stream';
 * createServer(nodeHandlerOf(createUIMessageStreamHandler({ agent: (id) => new Agent({ model, sessionId: id }) }))).listen(3000);
 * ```
 */
export function nodeHandlerOf(
  handler: (request: Request) => Promise<Response>,
): (req: IncomingMessage, res: ServerResponse) => void {
  // A plain listener (what createServer and Express expect): every failure is answered here.
  return (req, res) => void serve(handler, req, res);
}

async function serve(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    signal: controller.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  });
  let response: Response;
  try {
    response = await handler(request);
  } catch (error) {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: { code: 'internal', message: error instanceof Error ? error.message : String(error) },
      }),
    );
    return;
  }
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => (out[name] = value));
  res.writeHead(response.status, out);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  // The client left: cancelling the body unsubscribes whatever produces it.
  res.on('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
    }
  } catch {
    // the body was cancelled (the client left): nothing more to write
  }
  res.end();
}
