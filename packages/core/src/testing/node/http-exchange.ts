/// <reference types="node" />
// Reading a request body and writing whole responses (JSON, OpenAI-shaped errors) for the test server.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MutableRecordedRequest } from './recording.js';

/** The request body as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.once('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.once('error', reject);
    req.once('aborted', () => reject(new Error('aborted')));
  });
}

/** Writes a whole response and marks the request completed once it is on the wire. */
export function sendRaw(
  res: ServerResponse,
  record: MutableRecordedRequest,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body, () => {
    record.completed = true;
  });
}

export function sendJson(
  res: ServerResponse,
  record: MutableRecordedRequest,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  sendRaw(res, record, status, 'application/json', JSON.stringify(value), headers);
}

/** An error in OpenAI's shape: `{ error: { message, type, param, code } }`. */
export function sendError(
  res: ServerResponse,
  record: MutableRecordedRequest,
  status: number,
  message: string,
  type: string,
  code: string | null,
  headers: Record<string, string> = {},
): void {
  sendJson(res, record, status, { error: { message, type, param: null, code } }, headers);
}
