import { ModelError } from '../model-error.js';
import type { OpenAIChatModelOptions } from './openai-chat-model-options.js';

/** Shorter values are not taken for credentials (a placeholder key such as `ollama`). */
const MIN_SECRET_LENGTH = 8;
const CREDENTIAL_HEADER = /authorization|api[-_]?key|token|secret|cookie|password/i;

/**
 * The credentials a model sends: its key (`apiKey`, `configuration.apiKey`, else the
 * `OPENAI_API_KEY` environment variable) and the values of credential headers in
 * `configuration.defaultHeaders` (`Authorization`, `api-key`, `x-api-key`, `*-token`...), with a
 * `Bearer`/`Basic` value also without its scheme.
 */
export function credentialsOf(options: OpenAIChatModelOptions): string[] {
  const found: unknown[] = [];
  if (options.apiKey !== null) {
    found.push(options.apiKey ?? options.configuration?.apiKey);
    if (options.apiKey === undefined && options.configuration?.apiKey == null && typeof process !== 'undefined')
      found.push(process.env['OPENAI_API_KEY']);
  }
  const headers = options.configuration?.defaultHeaders;
  if (headers && typeof headers === 'object') {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      if (!CREDENTIAL_HEADER.test(name) || typeof value !== 'string') continue;
      found.push(value, value.replace(/^\s*(bearer|basic)\s+/i, ''));
    }
  }
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
