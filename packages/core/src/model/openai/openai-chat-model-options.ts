import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';
import { ModelError } from '../model-error.js';
import type { ClientOptions } from '@langchain/openai';

/**
 * Options of {@link OpenAIChatModel}.
 *
 * @example
 * ```ts
 * const options: OpenAIChatModelOptions = { model: 'gpt-4o-mini', temperature: 0.2, idleTimeoutMs: 30_000 };
 * const model = new OpenAIChatModel(options);
 * ```
 */
export interface OpenAIChatModelOptions {
  /** Model id sent to the server, e.g. `gpt-4o-mini`. */
  readonly model: string;
  /**
   * API key. Default: the `OPENAI_API_KEY` environment variable; without either, the constructor
   * throws. `null` says the server needs no key (a local server): no `Authorization` header is sent.
   */
  readonly apiKey?: string | null;
  /**
   * Base URL of any OpenAI-compatible server, an absolute `http://` or `https://` URL such as
   * `http://localhost:11434/v1` (checked at construction). Default: OpenAI (or `OPENAI_BASE_URL`).
   */
  readonly baseURL?: string;
  readonly temperature?: number;
  readonly topP?: number;
  /** Sent as `max_tokens` (`max_completion_tokens` for OpenAI reasoning models). */
  readonly maxTokens?: number;
  readonly stop?: readonly string[];
  readonly seed?: number;
  /** Stream the response (SSE). Default true. Both modes emit the same events. */
  readonly streaming?: boolean;
  /**
   * Retries inside the client. Default 0 and passed through as is: retries belong to a
   * retry middleware, which sees every attempt.
   */
  readonly maxRetries?: number;
  /**
   * Longest wait, in ms, for the response (streaming: its headers; non-streaming: the whole
   * response) before the call fails with a retryable `timeout` {@link ModelError}. Also the
   * `openai` SDK's `timeout` (per attempt when `maxRetries > 0`).
   */
  readonly timeout?: number;
  /**
   * Longest silence, in ms, before the call fails with a retryable `timeout` {@link ModelError}:
   * until the first data and between streamed chunks (non-streaming: until the whole response).
   * Default: none. Guards against a server that stalls after the headers, which `timeout` does not cover.
   */
  readonly idleTimeoutMs?: number;
  /** Send the assistant's thinking back as `reasoning_content` (some servers want it during tool use). Default false. */
  readonly sendReasoning?: boolean;
  /** Extra fields merged into every request body (e.g. `{ parallel_tool_calls: false }`). */
  readonly modelKwargs?: Readonly<Record<string, unknown>>;
  /** Options of the underlying `openai` client (`defaultHeaders`, `fetch`, `organization`, ...). */
  readonly configuration?: ClientOptions;
  /** Provider name for telemetry. Default `'openai'`. */
  readonly provider?: string;
  /**
   * The server honours `response_format: {type: 'json_schema'}` (OpenAI, vLLM, Ollama, LM Studio
   * do): a reply with `output` asks for it natively. Set false for a server that does not, and
   * the agent gives the model a `final_output` tool instead. Default true.
   */
  readonly supportsResponseFormat?: boolean;
}

// Every option, typed against the interface: adding one there without listing it fails to compile.
const KEYS = optionKeys<OpenAIChatModelOptions>({
  model: true,
  apiKey: true,
  baseURL: true,
  temperature: true,
  topP: true,
  maxTokens: true,
  stop: true,
  seed: true,
  streaming: true,
  maxRetries: true,
  timeout: true,
  idleTimeoutMs: true,
  sendReasoning: true,
  modelKwargs: true,
  configuration: true,
  provider: true,
  supportsResponseFormat: true,
});

/** The environment, where there is one (the adapter also runs in browser-like test environments). */
function env(name: string): string | undefined {
  const value = typeof process === 'undefined' ? undefined : process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

function fail(message: string): never {
  throw new ModelError(`OpenAIChatModel: ${message}`, { code: 'invalid_configuration', retryable: false });
}

function hasHeader(headers: unknown, name: string): boolean {
  if (!headers || typeof headers !== 'object') return false;
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

/**
 * Checks the options of {@link OpenAIChatModel} when it is built, so a misconfiguration fails at
 * once with the option's name and the fix, instead of on the first call (or never: a missing
 * `model` would silently send the client's default model). Throws a {@link ModelError} with
 * code `invalid_configuration`.
 *
 * - no unknown key (code `unknown_option`, with "did you mean": `baseUrl`, LangChain's spelling,
 *   would otherwise be dropped and the request and the key sent to OpenAI);
 * - `model`: a non-empty string;
 * - a key: `apiKey`, `configuration.apiKey`, an `Authorization`/`api-key` header or the
 *   `OPENAI_API_KEY` environment variable; `apiKey: null` says the server needs none;
 * - the base URL in effect (`baseURL`, `configuration.baseURL` or `OPENAI_BASE_URL`): an
 *   absolute `http://` or `https://` URL.
 *
 * @example
 * ```ts
 * checkOpenAIChatModelOptions({ model: 'qwen3:8b', baseURL: 'http://localhost:11434/v1', apiKey: null });
 * ```
 */
export function checkOpenAIChatModelOptions(options: OpenAIChatModelOptions): void {
  if (options === null || typeof options !== 'object') {
    fail(
      `expected an options object, got ${options === null ? 'null' : typeof options}: new OpenAIChatModel({ model: 'gpt-4o-mini' }).`,
    );
  }
  checkOptionKeys('OpenAIChatModel', options, KEYS, {
    foreign: { apiBase: 'baseURL', endpoint: 'baseURL', url: 'baseURL', key: 'apiKey' },
    error: (code, _option, message) =>
      new ModelError(`OpenAIChatModel: ${message}`, {
        code: code === 'unknown_option' ? code : 'invalid_configuration',
      }),
  });
  const model: unknown = options.model;
  if (typeof model !== 'string' || model.trim() === '') {
    fail(
      `option "model" is required (the model id the server serves, e.g. { model: 'gpt-4o-mini' } or { model: 'qwen3:8b' } for Ollama); got ${model === undefined ? 'nothing' : JSON.stringify(model)}.`,
    );
  }
  const apiKey: unknown = options.apiKey;
  if (apiKey !== undefined && apiKey !== null && (typeof apiKey !== 'string' || apiKey === '')) {
    fail(
      `option "apiKey" must be a non-empty string, or null for a server that needs no key; got ${JSON.stringify(apiKey)}.`,
    );
  }
  const headers = options.configuration?.defaultHeaders;
  const keyGiven =
    apiKey !== undefined ||
    options.configuration?.apiKey != null ||
    hasHeader(headers, 'authorization') ||
    hasHeader(headers, 'api-key') ||
    env('OPENAI_API_KEY') !== undefined;
  if (!keyGiven) {
    fail(
      'no API key: pass { apiKey } or set the OPENAI_API_KEY environment variable; for a server that needs no key (a local server), pass { apiKey: null }.',
    );
  }
  const [baseURL, from] =
    options.baseURL !== undefined
      ? [options.baseURL as unknown, 'option "baseURL"']
      : options.configuration?.baseURL != null
        ? [options.configuration.baseURL as unknown, 'option "configuration.baseURL"']
        : [env('OPENAI_BASE_URL'), 'the OPENAI_BASE_URL environment variable'];
  if (baseURL !== undefined) checkBaseURL(baseURL, from);
}

function checkBaseURL(value: unknown, from: string): void {
  const example = "an OpenAI-compatible endpoint such as 'http://localhost:11434/v1'";
  if (typeof value !== 'string' || value.trim() === '')
    fail(`${from} must be ${example}; got ${JSON.stringify(value)}.`);
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    // 'localhost:8080/v1' parses as scheme 'localhost:'; a missing scheme is the usual slip.
    const hint =
      /^[a-z0-9.-]+:\d+(\/|$)/i.test(value) || url === undefined
        ? ` (did you mean 'http://${value.replace(/^\/+/, '')}'?)`
        : '';
    fail(`${from} must be an http:// or https:// URL, ${example}; got ${JSON.stringify(value)}${hint}.`);
  }
}

/**
 * A fetch that sends no `Authorization` header (for `apiKey: null`): LangChain drops header
 * overrides set to null, so the placeholder key is removed on the way out instead.
 */
export function withoutAuthorization(inner: ClientOptions['fetch']): NonNullable<ClientOptions['fetch']> {
  return (url, init) => {
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    return (inner ?? fetch)(url, { ...init, headers });
  };
}
