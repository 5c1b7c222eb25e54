import { checkKeys, MiddlewareOptionError } from '../internal/option-error.js';
import type { GuardrailCheck } from './check.js';

/**
 * Options of {@link moderation}.
 *
 * @example
 * ```ts
 * const options: ModerationOptions = { baseURL: 'http://localhost:8000/v1', categories: ['violence', 'self-harm'] };
 * ```
 */
export interface ModerationOptions {
  /** The API base URL (the endpoint is `<baseURL>/moderations`). Default `'https://api.openai.com/v1'`. */
  readonly baseURL?: string;
  /** Sent as a bearer token. Default: the `OPENAI_API_KEY` environment variable. */
  readonly apiKey?: string;
  /** Default `'omni-moderation-latest'`. */
  readonly model?: string;
  /** Trip only on these categories. Default: whenever the endpoint says `flagged`. */
  readonly categories?: readonly string[];
  /** Default the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** The check's name. Default `'moderation'`. */
  readonly name?: string;
}

interface ModerationResult {
  readonly flagged: boolean;
  readonly categories?: Readonly<Record<string, boolean>>;
}

/**
 * A check that asks an OpenAI-compatible moderation endpoint (`POST /v1/moderations`) about the
 * text and trips when it is flagged (in one of `categories`, when given); the reason lists the
 * flagged categories. A failed request (network, non-2xx status, a body without `results`) is a
 * failure of the check. The request is aborted when its answer is no longer wanted.
 *
 * @example
 * ```ts
 * new GuardrailMiddleware({ input: moderation({ apiKey: process.env.OPENAI_API_KEY }) });
 * ```
 */
export function moderation(options: ModerationOptions = {}): GuardrailCheck {
  checkKeys('moderation', options, ['baseURL', 'apiKey', 'model', 'categories', 'fetch', 'name']);
  const base = (options.baseURL ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(base))
    throw new MiddlewareOptionError(
      `moderation: baseURL must be an http(s) URL such as 'https://api.openai.com/v1', got ${JSON.stringify(base)}.`,
    );
  const model = options.model ?? 'omni-moderation-latest';
  const only = options.categories;
  return {
    name: options.name ?? 'moderation',
    check: async (text, { signal }) => {
      const doFetch = options.fetch ?? fetch;
      const apiKey = options.apiKey ?? envKey();
      const res = await doFetch(`${base}/moderations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey && { authorization: `Bearer ${apiKey}` }) },
        body: JSON.stringify({ model, input: text }),
        signal,
      });
      if (!res.ok)
        throw new Error(`the moderation endpoint answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      const body = (await res.json()) as { results?: readonly ModerationResult[] };
      const result = body.results?.[0];
      if (!result || typeof result.flagged !== 'boolean')
        throw new Error('the moderation endpoint answered no results');
      const flagged = Object.entries(result.categories ?? {})
        .filter(([c, on]) => on && (!only || only.includes(c)))
        .map(([c]) => c);
      const tripped = only ? flagged.length > 0 : result.flagged;
      return tripped ? { tripped, reason: `flagged: ${flagged.join(', ') || 'unspecified'}` } : { tripped: false };
    },
  };
}

/** `OPENAI_API_KEY` from the environment, where there is one (not in a browser). */
const envKey = (): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.['OPENAI_API_KEY'];
