import { Observable } from 'rxjs';
import { type AgentEvent, OptionsError, type RuntimeContext } from '@rxscope/core';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';

/**
 * A server log level, least to most severe: `debug` … `emergency` (RFC 5424).
 *
 * @example
 * ```ts
 * const level: McpLogLevel = 'warning';
 * ```
 */
export type McpLogLevel = LoggingLevel;

/**
 * The levels, least severe first.
 *
 * @example
 * ```ts
 * MCP_LOG_LEVELS.indexOf('error') > MCP_LOG_LEVELS.indexOf('info'); // true
 * ```
 */
export const MCP_LOG_LEVELS: readonly McpLogLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/**
 * Value of the `CUSTOM {name: 'mcp_log'}` event: one log message a server sent
 * (`notifications/message`).
 *
 * @example
 * ```ts
 * const value: McpLogValue = { server: 'everything', level: 'info', logger: 'everything-server', data: 'Roots updated' };
 * ```
 */
export interface McpLogValue {
  readonly server: string;
  readonly level: McpLogLevel;
  readonly logger?: string;
  readonly data: unknown;
}

/**
 * A root the client offers servers (MCP `roots`): a `file://` URI of a folder they may work in.
 *
 * @example
 * ```ts
 * const root: McpRoot = { uri: 'file:///srv/project', name: 'project' };
 * ```
 */
export interface McpRoot {
  readonly uri: string;
  readonly name?: string;
}

/**
 * Passes the servers' log messages to the replies running meanwhile, as `CUSTOM {name:
 * 'mcp_log'}` events (and to an `onLog` callback).
 *
 * @example
 * ```ts
 * const hub = new McpLogHub();
 * const off = hub.listen((value) => console.log(value.server, value.level, value.data));
 * hub.emit({ server: 'everything', level: 'info', data: 'hello' });
 * off();
 * ```
 */
export class McpLogHub {
  private readonly listeners = new Set<(value: McpLogValue) => void>();

  /** Adds a listener; returns the function that removes it. */
  listen(listener: (value: McpLogValue) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Gives a log message to every listener. */
  emit(value: McpLogValue): void {
    for (const listener of this.listeners) listener(value);
  }
}

/**
 * A reply's events with the servers' log messages received while it runs, each as a `CUSTOM
 * {name: 'mcp_log', value}` event between its `REPLY_START` and `REPLY_END`.
 *
 * @example
 * ```ts
 * onAgent: (agent, ctx, input, next) => withServerLogs(ctx, next(input), hub),
 * ```
 */
export function withServerLogs(
  ctx: Pick<RuntimeContext, 'event' | 'agentName'>,
  events: Observable<AgentEvent>,
  hub: McpLogHub,
): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    let open = false;
    const off = hub.listen((value) => {
      if (open) subscriber.next(ctx.event('CUSTOM', { name: 'mcp_log', value }));
    });
    const subscription = events.subscribe({
      next: (e) => {
        const own = e.source === ctx.agentName;
        if (own && e.type === 'REPLY_END') open = false;
        subscriber.next(e);
        if (own && e.type === 'REPLY_START') open = true;
      },
      error: (e: unknown) => subscriber.error(e),
      complete: () => subscriber.complete(),
    });
    return () => {
      off();
      subscription.unsubscribe();
    };
  });
}

/**
 * Refuses a log level that is none, and roots that are not `file://` URIs.
 *
 * @example
 * ```ts
 * checkLogAndRoots({ logLevel: 'info', roots: [{ uri: 'file:///srv' }] }); // ok
 * ```
 */
export function checkLogAndRoots(options: {
  readonly logLevel?: McpLogLevel | undefined;
  readonly roots?: readonly McpRoot[] | undefined;
}): void {
  if (options.logLevel !== undefined && !MCP_LOG_LEVELS.includes(options.logLevel)) {
    throw new OptionsError(
      'invalid_option',
      'McpMiddleware.connect.logLevel',
      `logLevel must be one of ${MCP_LOG_LEVELS.join(', ')}; got ${JSON.stringify(options.logLevel)}.`,
    );
  }
  for (const root of options.roots ?? []) {
    if (typeof root?.uri !== 'string' || !root.uri.startsWith('file://')) {
      throw new OptionsError(
        'invalid_option',
        'McpMiddleware.connect.roots',
        `a root needs a file:// uri (a folder), got ${JSON.stringify(root?.uri)}.`,
      );
    }
  }
}
