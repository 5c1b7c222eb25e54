import { CREDENTIAL_HEADER, distinctSecrets } from '../redact-credentials.js';
import type { OpenAIChatModelOptions } from './openai-chat-model-options.js';

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
  return distinctSecrets(found);
}
