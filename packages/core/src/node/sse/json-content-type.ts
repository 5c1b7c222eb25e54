/// <reference types="node" />
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';

/** `application/json` or a `+json` type (`application/vnd.api+json`), parameters ignored. @internal */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.-]+\+json$/.test(type);
}

/**
 * Refuses, with an {@link HttpError} 415 `unsupported_media_type`, a request whose body is not
 * declared as JSON (`application/json` or a `+json` type): a `text/plain`, form or multipart POST
 * is what a browser sends cross-site without a CORS preflight, so a route with side effects must
 * not read it as JSON. A request without a body and without a content type (a GET, an empty
 * POST) passes. `createAgentSseHandler`'s `body()` and `createAgUiHandler` check this
 * themselves; call it before `readJsonBody` in your own routes. `what` starts the message.
 *
 * @example
 * ```ts
 * requireJsonContentType(req, 'A message');
 * const { text } = (await readJsonBody(req)) as { text?: string };
 * ```
 */
export function requireJsonContentType(req: IncomingMessage, what: string): void {
  const contentType = req.headers['content-type'];
  if (isJsonMediaType(contentType)) return;
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
  if (contentType === undefined && !hasBody) return;
  throw new HttpError(
    415,
    `${what} must be sent as application/json (got ${contentType ? `content-type: ${contentType}` : 'no content-type'}).`,
    'unsupported_media_type',
  );
}
