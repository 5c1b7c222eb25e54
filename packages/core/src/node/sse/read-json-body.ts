/// <reference types="node" />
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';

/**
 * The JSON body of a request: `req.body` when a framework already parsed it (Express'
 * `express.json()`, a Fastify route passing `request.raw` with `body` set), else the raw stream
 * read and parsed here. An empty body is `undefined`; malformed JSON is an {@link HttpError}
 * 400, a body over `limitBytes` (default 1 MiB) a 413, JSON nested deeper than `maxDepth`
 * (default 64 arrays/objects) a 400 `too_deep` (deeper values overflow the stack of whatever
 * walks them later — validation, `JSON.stringify` — and would become a 500).
 *
 * @example
 * ```ts
 * const { text } = (await readJsonBody(req)) as { text?: string };
 * ```
 */
export async function readJsonBody(req: IncomingMessage, limitBytes = 1024 * 1024, maxDepth = 64): Promise<unknown> {
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
  if (nestingDepth(text) > maxDepth)
    throw new HttpError(400, `The request body is nested deeper than ${maxDepth} levels.`, 'too_deep');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON.', 'invalid_json');
  }
}

/** The deepest nesting of arrays and objects in a JSON text (brackets inside strings do not count). */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}
