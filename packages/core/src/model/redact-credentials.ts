import { ModelError } from './model-error.js';

/** Shorter values are not taken for credentials (a placeholder key such as `ollama`). */
const MIN_SECRET_LENGTH = 8;
/** Header names whose values are credentials (`Authorization`, `api-key`, `x-api-key`, `*-token`...). */
export const CREDENTIAL_HEADER = /authorization|api[-_]?key|token|secret|cookie|password/i;

/** The distinct values of `found` long enough to be secrets, longest first (so a key is redacted before a prefix of it). */
export function distinctSecrets(found: readonly unknown[]): string[] {
  const secrets = found.filter((v): v is string => typeof v === 'string' && v.trim().length >= MIN_SECRET_LENGTH);
  return [...new Set(secrets.map((s) => s.trim()))].sort((a, b) => b.length - a.length);
}

/**
 * `error` without the credentials in its message: a server (a proxy, a gateway) that echoes the
 * key it was sent into its error would otherwise put it into the reply's error, the event
 * stream, traces and logs. Such an error is rebuilt with `[redacted]` in their place and without
 * its `cause` (the raw client error holds the unredacted text); any other error is returned as is.
 */
export function withoutCredentials(error: ModelError, secrets: readonly string[]): ModelError {
  if (!secrets.some((s) => error.message.includes(s))) return error;
  let message = error.message;
  for (const secret of secrets) message = message.split(secret).join('[redacted]');
  return new ModelError(message, {
    ...(error.status !== undefined ? { status: error.status } : {}),
    retryable: error.retryable,
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
    code: error.code,
  });
}
