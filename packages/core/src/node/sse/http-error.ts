/// <reference types="node" />
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { AgentShutdownError, AgentUsageError, InvalidReplyInputError } from '../../agent/errors.js';
import { RxscopeError } from '../../error/rxscope-error.js';

/**
 * An error with an HTTP status, for the handlers of `@rxscope/core/node`: throw it (or fail
 * the event stream with it) before the stream starts and the client gets that status and a
 * JSON body `{error: {name, message, code?}}`.
 *
 * @example
 * ```ts
 * createAgentSseHandler({ events: (req) => { throw new HttpError(404, `No session ${id}.`, 'unknown_session'); } });
 * ```
 */
export class HttpError extends RxscopeError {
  override readonly name = 'HttpError';
  /** The code sent in the body; `http_<status>` when none was given. */
  readonly code: string;
  constructor(
    readonly status: number,
    message: string,
    code?: string,
  ) {
    super(message);
    this.code = code ?? `http_${status}`;
  }
}

/**
 * The HTTP status for an error raised before a response started: its own `status` or
 * `statusCode` (4xx/5xx), 503 for an {@link AgentShutdownError} (the agent was shut down: retry
 * elsewhere), 409 for an {@link AgentUsageError} (the agent's state refuses the input: nothing
 * to resume, a reply waiting, a wrong answer), 400 for malformed JSON, else 500.
 *
 * @example
 * ```ts
 * res.statusCode = httpStatusOf(error);
 * ```
 */
export function httpStatusOf(error: unknown): number {
  if (error instanceof AgentShutdownError) return 503;
  if (error instanceof InvalidReplyInputError) return 400;
  if (error instanceof AgentUsageError) return 409;
  if (error instanceof SyntaxError) return 400;
  const e = error as { status?: unknown; statusCode?: unknown } | null;
  for (const status of [e?.status, e?.statusCode]) {
    if (typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) return status;
  }
  return 500;
}

/**
 * Sends an error as a JSON response `{error: {name, message, code?}}` with {@link httpStatusOf}
 * (a 500 hides the message of an unexpected error: it may hold internals). Does nothing when
 * the response has already started.
 *
 * @example
 * ```ts
 * sendHttpError(res, new HttpError(400, 'The body needs "text".'));
 * ```
 */
export function sendHttpError(res: ServerResponse, error: unknown, headers: OutgoingHttpHeaders = {}): number {
  const status = httpStatusOf(error);
  if (res.headersSent || res.destroyed) return status;
  const e = error instanceof Error ? (error as Error & { code?: unknown }) : undefined;
  const exposed = status < 500 || error instanceof HttpError;
  const body = {
    error: {
      name: exposed && e ? e.name : 'InternalServerError',
      message: exposed && e ? e.message : 'The server failed to handle the request.',
      ...(exposed && typeof e?.code === 'string' ? { code: e.code } : {}),
    },
  };
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
  return status;
}
