import { InjectionToken, makeEnvironmentProviders, type EnvironmentProviders } from '@angular/core';
import { checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';

/**
 * How the chat talks to the server: see {@link RxscopeConfig.transport}.
 *
 * @example
 * ```ts
 * const transport: RxscopeTransport = environment.agUi ? 'ag-ui' : 'sse';
 * ```
 */
export type RxscopeTransport = 'sse' | 'ag-ui';

/**
 * Where and how `injectAgentChat()` reaches the agent; given once with {@link provideRxscope}.
 *
 * @example
 * ```ts
 * const config: RxscopeConfig = { url: '/api/chat', transport: 'sse', headers: { 'x-session-id': id } };
 * ```
 */
export interface RxscopeConfig {
  /** The endpoint every request of the chat is POSTed to (absolute, or relative to the page). */
  readonly url: string;
  /**
   * `'sse'`: rxscope's own event stream (`createAgentSseHandler` on the server), one POST per
   * reply with an {@link AgentChatRequest} body. `'ag-ui'`: an AG-UI endpoint
   * (`createAgUiHandler`), one POST of a `RunAgentInput` per run (the thread's messages, and
   * `resume` entries answering the run's interrupts).
   */
  readonly transport: RxscopeTransport;
  /**
   * Headers sent with every request (a session id, an authorization). A function is called per
   * request, so a token that changes is read fresh.
   */
  readonly headers?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>);
  /**
   * How long to wait for the first event of a reply before the chat fails with a
   * `no_first_event` error, in ms (default 30,000): a URL that accepts the request but never
   * streams is reported instead of leaving the chat streaming for ever.
   */
  readonly firstEventTimeoutMs?: number;
}

const KEYS = optionKeys<RxscopeConfig>({ url: true, transport: true, headers: true, firstEventTimeoutMs: true });
const TRANSPORTS: readonly RxscopeTransport[] = ['sse', 'ag-ui'];

/**
 * The configuration {@link provideRxscope} gave, for code that builds its own requests.
 *
 * @example
 * ```ts
 * const { url } = inject(RXSCOPE_CONFIG);
 * ```
 */
export const RXSCOPE_CONFIG = new InjectionToken<RxscopeConfig>('RXSCOPE_CONFIG');

/** Refuses a configuration (or a chat's override of it, `partial`) that cannot work, naming `owner`. */
export function checkRxscopeConfig(owner: string, config: Partial<RxscopeConfig>, partial = false): void {
  checkOptionKeys(owner, config, KEYS);
  const invalid = (key: string, message: string) => new OptionsError('invalid_option', `${owner}.${key}`, message);
  if ((!partial || config.url !== undefined) && (typeof config.url !== 'string' || !config.url.trim()))
    throw invalid('url', `${owner} needs "url": the endpoint of the agent, such as "/api/chat".`);
  if ((!partial || config.transport !== undefined) && !TRANSPORTS.includes(config.transport!))
    throw invalid(
      'transport',
      `${owner}'s "transport" is ${JSON.stringify(config.transport)}; use "sse" (a createAgentSseHandler endpoint) or "ag-ui" (a createAgUiHandler endpoint).`,
    );
  const timeout = config.firstEventTimeoutMs;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0))
    throw invalid('firstEventTimeoutMs', `${owner}'s "firstEventTimeoutMs" is a positive number of ms.`);
  if (config.headers !== undefined && typeof config.headers !== 'function' && typeof config.headers !== 'object')
    throw invalid(
      'headers',
      `${owner}'s "headers" is an object of header names to values, or a function returning one.`,
    );
}

/**
 * Provides the agent endpoint to `injectAgentChat()`, in `bootstrapApplication`'s providers (or
 * a route's). Checks the configuration at once: an unknown key (with "did you mean"), an empty
 * `url`, an unknown `transport` or a bad timeout throw an `OptionsError` when the app starts.
 * Touches no browser API, so it is safe in server-side rendering.
 *
 * @example
 * ```ts
 * bootstrapApplication(App, {
 *   providers: [provideZonelessChangeDetection(), provideRxscope({ url: '/api/chat', transport: 'sse' })],
 * });
 * ```
 */
export function provideRxscope(config: RxscopeConfig): EnvironmentProviders {
  checkRxscopeConfig('provideRxscope', config);
  return makeEnvironmentProviders([{ provide: RXSCOPE_CONFIG, useValue: config }]);
}
