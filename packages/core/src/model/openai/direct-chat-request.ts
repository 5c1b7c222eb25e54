import { type ChatOpenAICompletions, OpenAIClient, wrapOpenAIClientError } from '@langchain/openai';

type StreamParams = OpenAIClient.Chat.ChatCompletionCreateParamsStreaming;
type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** Where and how a direct request goes: what the client would send, taken from the client once. */
interface Route {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch: Fetch;
  /** The client's `timeout` (default 10 minutes): the longest wait for the response headers. */
  readonly timeout: number;
  readonly makeStatusError: (status: number, error: unknown, message: string | undefined, headers: Headers) => Error;
}

/** The parts of the `openai` client this file reads (some are not in its public typings). */
interface ClientParts {
  readonly _options: { readonly apiKey?: unknown };
  readonly _provider?: unknown;
  readonly _workloadIdentityAuth?: unknown;
  readonly logLevel?: string;
  readonly fetchOptions?: unknown;
  readonly timeout: number;
  readonly fetch: Fetch;
  buildRequest(
    options: Record<string, unknown>,
    meta: { retryCount: number },
  ): Promise<{ url: string; req: { headers: Headers } }>;
  makeStatusError(status: number, error: unknown, message: string | undefined, headers: Headers): Error;
}

/**
 * Why the direct path does not serve a client, or undefined when it does. Each of these needs
 * the `openai` SDK's own request machinery per request.
 */
function unsupported(client: ClientParts): string | undefined {
  if (client._provider) return 'a provider runtime';
  if (client._workloadIdentityAuth) return 'workload identity';
  if (typeof client._options.apiKey === 'function') return 'an API key callback';
  if (client.logLevel === 'info' || client.logLevel === 'debug') return 'request logging';
  // The SDK explains a dispatcher that does not fit its fetch; it keeps those requests.
  if (client.fetchOptions !== undefined) return 'fetchOptions';
  return undefined;
}

/** The keys of a request the SDK builds with nothing of its own added to the fetch. */
const FETCH_KEYS = new Set(['method', 'headers', 'signal', 'duplex', 'body']);

/** Error bodies are read up to this many bytes: the status and the start are what a person needs. */
const MAX_ERROR_BODY = 64 * 1024;

/** A failed response's body as text, cut at {@link MAX_ERROR_BODY} (a server may send anything). */
async function errorText(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
    if (text.length >= MAX_ERROR_BODY) {
      await reader.cancel();
      return text.slice(0, MAX_ERROR_BODY);
    }
  }
}

/** Why the header wait of a direct request ended (a value only this file makes). */
const HEADERS_TIMEOUT: unique symbol = Symbol('headers timeout');

/** The SDK's connection error for a failed `fetch`, as its `makeRequest` builds it. */
function connectionError(e: unknown): Error {
  // Not `instanceof Error`: fetch's errors may come from another realm (a test environment's).
  const error = (typeof e === 'object' && e !== null ? e : new Error(String(e))) as Error;
  const cause = 'cause' in error ? String(error.cause) : '';
  const timedOut = error.name === 'AbortError' || /timed? ?out/i.test(String(error) + cause);
  return timedOut
    ? Object.assign(new OpenAIClient.APIConnectionTimeoutError(), { cause: error })
    : new OpenAIClient.APIConnectionError({ cause: error });
}

/**
 * Streamed chat completions sent with the `openai` client's own `fetch`, URL and headers (its
 * authorization, organization, project, default headers, user agent), taken once from the client
 * ChatOpenAI builds, instead of through the client's per-request machinery. That machinery
 * (options copies, header assembly, an abort controller tied to the caller's signal, log
 * formatting, retry bookkeeping) costs more per call than the rest of the adapter, and an
 * agent's call needs none of it: retries belong to middleware and logging is off.
 *
 * Failures are the SDK's: a status error from the client's `makeStatusError` and connection
 * errors of the same classes, all wrapped by `wrapOpenAIClientError` as ChatOpenAI wraps them.
 * A client whose requests need the SDK per request (an API key callback, workload identity, a
 * provider runtime, `fetchOptions`, `logLevel` info or debug) is not served: {@link open} then
 * resolves undefined and the caller goes through the SDK.
 */
export class DirectChatRequests {
  /** The route, once known; `null` once the client turned out to need the SDK. */
  private route: Route | null | undefined;
  private pending: Promise<Route | null> | undefined;

  constructor(private readonly completions: ChatOpenAICompletions) {}

  /**
   * Sends `body` and resolves with the response once its headers are in and its status is a
   * success; undefined when this client needs the SDK path. The body is left unread.
   */
  async open(body: StreamParams, controller: AbortController): Promise<Response | undefined> {
    const route = this.route !== undefined ? this.route : await this.resolve();
    if (!route) return undefined;
    const signal = controller.signal;
    // The SDK's wait for the headers (its `timeout`), which an agent's request would otherwise lose.
    const timer = setTimeout(() => controller.abort(HEADERS_TIMEOUT), route.timeout);
    let response: Response;
    try {
      response = await route.fetch(route.url, {
        method: 'POST',
        headers: route.headers,
        body: JSON.stringify(body),
        signal,
      });
    } catch (e) {
      if (signal.reason === HEADERS_TIMEOUT) throw wrapOpenAIClientError(new OpenAIClient.APIConnectionTimeoutError());
      if (signal.aborted) throw signal.reason;
      throw wrapOpenAIClientError(connectionError(e));
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) {
      const text = await errorText(response).catch((e: unknown) => (e instanceof Error ? e.message : String(e)));
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      throw wrapOpenAIClientError(
        route.makeStatusError(response.status, json, json === undefined ? text : undefined, response.headers),
      );
    }
    return response;
  }

  private resolve(): Promise<Route | null> {
    // A route that cannot be built (the client refuses its own configuration) sends this call
    // through the SDK, which reports that failure as it always has; the next call tries again.
    return (this.pending ??= this.build().then(
      (route) => (this.route = route),
      () => {
        this.pending = undefined;
        return null;
      },
    ));
  }

  private async build(): Promise<Route | null> {
    // ChatOpenAI creates its client on first use (the call also copies its client options: once is enough).
    if (!(this.completions.client as OpenAIClient | undefined)) this.completions._getClientOptions(undefined);
    const client = this.completions.client as unknown as ClientParts;
    if (unsupported(client) !== undefined) return null;
    // The request the SDK would build for a chat completion, less its body: URL and every header.
    const { url, req } = await client.buildRequest(
      { method: 'post', path: '/chat/completions', body: {}, __security: { bearerAuth: true } },
      { retryCount: 0 },
    );
    // Anything the SDK would add to the fetch itself (a dispatcher, client certificates) stays its.
    if (Object.keys(req).some((key) => !FETCH_KEYS.has(key))) return null;
    const headers: Record<string, string> = {};
    req.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const fetch = client.fetch;
    return {
      url,
      headers,
      fetch: (u, init) => fetch.call(undefined, u, init),
      timeout: client.timeout,
      makeStatusError: (status, error, message, h) => client.makeStatusError(status, error, message, h),
    };
  }
}
