import { ModelError } from './model-error.js';

/**
 * Parses a `Retry-After` header value into milliseconds: delay-seconds (`"2"`, `"0.5"`) or an
 * HTTP date (`"Wed, 21 Oct 2015 07:28:00 GMT"`, relative to `now`). Returns `undefined` for a
 * missing or unparseable value; a date in the past gives 0.
 *
 * @example
 * ```ts
 * parseRetryAfter('2'); // 2000
 * parseRetryAfter(new Date(Date.now() + 5000).toUTCString()); // ≈ 5000
 * ```
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, date - now);
}

/** True for HTTP statuses where the same request may succeed later. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function codeOfStatus(status: number): string {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 408:
      return 'timeout';
    case 409:
      return 'conflict';
    case 413:
      return 'request_too_large';
    case 422:
      return 'unprocessable';
    case 429:
      return 'rate_limited';
    default:
      return status >= 500 ? 'server_error' : `http_${status}`;
  }
}

interface HeadersLike {
  get(name: string): string | null;
}

function headerOf(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  if (typeof (headers as HeadersLike).get === 'function') return (headers as HeadersLike).get(name) ?? undefined;
  const v = (headers as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : undefined;
}

function retryAfterOf(headers: unknown): number | undefined {
  // OpenAI sends a non-standard millisecond hint next to the standard header.
  const ms = headerOf(headers, 'retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  return parseRetryAfter(headerOf(headers, 'retry-after'));
}

function isErrorLike(v: unknown): v is Error {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Error).message === 'string' &&
    typeof (v as Error).name === 'string'
  );
}

/** Removes LangChain's appended "Troubleshooting URL" paragraph and trailing whitespace. */
function cleanMessage(message: string): string {
  return message.replace(/\s*Troubleshooting URL: \S+\s*$/, '').trim();
}

const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * The innermost error of a `cause` chain (the first of an `AggregateError`'s errors): what really
 * failed under "Connection error." and "fetch failed", e.g. `connect ECONNREFUSED 127.0.0.1:8080`.
 */
function rootCause(err: Error): Error & { code?: unknown } {
  let current: Error & { code?: unknown; errors?: unknown } = err;
  for (let depth = 0; depth < 10; depth++) {
    const inner: unknown = isErrorLike(current.cause)
      ? current.cause
      : Array.isArray(current.errors) && isErrorLike(current.errors[0])
        ? current.errors[0]
        : undefined;
    if (!isErrorLike(inner) || inner === current) break;
    current = inner;
  }
  return current;
}

/** The root cause as text for a message, with its code when the message does not say it. */
function describeCause(cause: Error & { code?: unknown }): string {
  const code = typeof cause.code === 'string' ? cause.code : undefined;
  const message = cause.message || cause.name;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/** Root causes that no retry can cure: the URL itself is wrong (undici's words). */
const URL_FAULT = /^(unknown scheme|bad port|invalid url|invalid protocol)/i;

function isConnectionFailure(err: Error): boolean {
  const name = err.constructor?.name ?? err.name;
  if (name === 'APIConnectionError' || err.name === 'APIConnectionError') return true;
  // undici's "terminated" (a body cut short), possibly re-wrapped as "TypeError: terminated".
  if (/(^|: )terminated$/.test(err.message) || /fetch failed|socket hang up|other side closed/i.test(err.message))
    return true;
  for (let cause: unknown = err; cause && typeof cause === 'object'; cause = (cause as { cause?: unknown }).cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    if (cause === (cause as { cause?: unknown }).cause) break;
  }
  return false;
}

/**
 * Turns anything a model client threw into a typed {@link ModelError}, so retry and fallback
 * middlewares decide without parsing strings. Understands the `openai` SDK's errors (also as
 * rethrown by `@langchain/openai`) and plain fetch failures:
 *
 * | failure | `code` | `retryable` |
 * | --- | --- | --- |
 * | HTTP 429 | `rate_limited` (+ `retryAfterMs` from `Retry-After`/`retry-after-ms`) | true |
 * | HTTP 408 / 409 | `timeout` / `conflict` | true |
 * | HTTP 5xx | `server_error` | true |
 * | HTTP 400 / 401 / 403 / 404 | `bad_request` / `unauthorized` / `forbidden` / `not_found` | false |
 * | context window exceeded | `context_length_exceeded` | false |
 * | connection refused, reset or cut mid-stream, unknown host (the root cause, e.g. `ECONNREFUSED 127.0.0.1:8080`, in the message) | `connection_error` | true |
 * | a base URL fetch cannot use (unknown scheme, bad port) | `invalid_url` | false |
 * | a host name that does not resolve (`ENOTFOUND`) | `host_not_found` | false |
 * | client timeout | `timeout` | true |
 * | a response that is not valid JSON / SSE | `malformed_response` | true |
 * | aborted by the caller | `cancelled` | false |
 *
 * A `ModelError` passes through unchanged; anything else becomes `code: 'model_error'`,
 * not retryable. The original error is kept as `cause`.
 *
 * @example
 * ```ts
 * try { await client.chat.completions.create(body); }
 * catch (e) { const err = toModelError(e); if (err.retryable) scheduleRetry(err.retryAfterMs); }
 * ```
 */
export function toModelError(err: unknown): ModelError {
  if (err instanceof ModelError) return err;
  // Duck-typed, not `instanceof Error`: fetch's errors may come from another realm (vm contexts, jest).
  if (!isErrorLike(err)) {
    return new ModelError(typeof err === 'string' ? err : `model call failed: ${JSON.stringify(err) ?? String(err)}`, {
      code: 'model_error',
      cause: err,
    });
  }
  const e = err as Error & { status?: unknown; headers?: unknown; code?: unknown; cause?: unknown };
  const message = cleanMessage(e.message);
  const name = e.constructor?.name ?? e.name;

  if (e.name === 'AbortError' || name === 'APIUserAbortError') {
    return new ModelError(`model request aborted: ${message}`, { code: 'cancelled', retryable: false, cause: err });
  }
  if (e.name === 'TimeoutError' || name === 'APIConnectionTimeoutError') {
    return new ModelError(`model request timed out: ${message}`, { code: 'timeout', retryable: true, cause: err });
  }
  const contextOverflow =
    e.name === 'ContextOverflowError' ||
    e.code === 'context_length_exceeded' ||
    /context_length_exceeded|maximum context length/i.test(message);
  // LangChain wraps a context overflow into ContextOverflowError; the HTTP error is its cause.
  const http = (typeof e.status === 'number' ? e : (e.cause as typeof e | undefined)) ?? e;
  const status = typeof http.status === 'number' && http.status > 0 ? http.status : undefined;
  if (contextOverflow) {
    return new ModelError(message, {
      code: 'context_length_exceeded',
      retryable: false,
      cause: err,
      ...(status ? { status } : {}),
    });
  }
  if (status !== undefined) {
    const retryAfterMs = retryAfterOf(http.headers);
    return new ModelError(message || `HTTP ${status}`, {
      status,
      code: codeOfStatus(status),
      retryable: retryableStatus(status),
      cause: err,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  if (e.name === 'SyntaxError' || /malformed|could not parse|unexpected token|not valid json/i.test(message)) {
    return new ModelError(`malformed response from the model server: ${message}`, {
      code: 'malformed_response',
      retryable: true,
      cause: err,
    });
  }
  const root = rootCause(e);
  if (root !== e && URL_FAULT.test(root.message)) {
    return new ModelError(
      `the model server's URL is not usable (${root.message}): the base URL must be an absolute http:// or https:// URL such as 'http://localhost:8080/v1'`,
      { code: 'invalid_url', retryable: false, cause: err },
    );
  }
  if (root !== e && root.code === 'ENOTFOUND') {
    // A host name that does not resolve is a typo or a wrong setting far more often than a hiccup (that is EAI_AGAIN).
    return new ModelError(`the model server's host was not found (${describeCause(root)}): check the base URL`, {
      code: 'host_not_found',
      retryable: false,
      cause: err,
    });
  }
  if (isConnectionFailure(e)) {
    const cause = describeCause(root);
    const detail = root !== e && cause && cause !== message ? ` (${cause})` : '';
    return new ModelError(`connection to the model server failed: ${message}${detail}`, {
      code: 'connection_error',
      retryable: true,
      cause: err,
    });
  }
  return new ModelError(message, { code: 'model_error', retryable: false, cause: err });
}
