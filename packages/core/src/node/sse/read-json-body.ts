/// <reference types="node" />
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';

/**
 * The JSON body of a request: `req.body` when a framework already parsed it (Express'
 * `express.json()`, a Fastify route passing `request.raw` with `body` set), else the raw stream
 * read and parsed here. An empty body is `undefined`; malformed JSON is an {@link HttpError}
 * 400, a body over `limitBytes` (default 1 MiB) a 413.
 *
 * @example
 * ```ts
 * const { text } = (await readJsonBody(req)) as { text?: string };
 * ```
 */
export async function readJsonBody(req: IncomingMessage, limitBytes = 1024 * 1024): Promise<unknown> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (parsed !== undefined) return parsed;
  if (req.readableEnded) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > limitBytes)
      throw new HttpError(413, `The request body is larger than ${limitBytes} bytes.`, 'body_too_large');
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON.', 'invalid_json');
  }
}
