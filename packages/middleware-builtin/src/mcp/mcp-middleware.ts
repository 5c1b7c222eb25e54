import { catchError, concat, type Observable, of, throwError } from 'rxjs';
import type { ActingInput, AgentHandle, AgentEvent, Middleware, Next, RuntimeContext, Tool } from '@rxscope/core';
import { checkOptionKeys, OptionsError, optionKeys } from '@rxscope/core';
import { type McpClientInfo, McpConnection, McpServerClosedError } from './connection.js';
import { mcpTool, mcpToolName, type McpToolOrigin } from './mcp-tool.js';
import { checkServerConfig, type McpServerConfig } from './server-config.js';
import { checkSamplingOptions, type McpSamplingOptions } from './sampling.js';

/**
 * Options of {@link McpMiddleware.connect}.
 *
 * @example
 * ```ts
 * const options: McpOptions = { servers: { files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] } } };
 * ```
 */
export interface McpOptions {
  /** The servers, by name; a server's name prefixes its tools' names (`files__read_file`). */
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  /** Prefix tool names with `<server>__`. Default true; `false` keeps the servers' own names. */
  readonly prefix?: boolean;
  /** How this client names itself to the servers. Default `{ name: 'rxscope', version: '0.1.0' }`. */
  readonly clientInfo?: McpClientInfo;
  /** Failures outside any call (a changed tool list that could not be read). Default: `console.warn`. */
  readonly onError?: (error: Error) => void;
  /** Offers only the tools this accepts (by rxscope name and origin), after each server's `include`/`exclude`. */
  readonly filter?: (name: string, origin: McpToolOrigin) => boolean;
  /**
   * Close every connection when an agent using this middleware is shut down (`agent.shutdown()`).
   * Default true. Set false when several agents share the middleware, and call `close()` once
   * they are all done.
   */
  readonly closeOnShutdown?: boolean;
  /**
   * Declare the `elicitation` capability (form and URL mode): a server's question during a tool
   * call suspends the reply with `REQUIRE_USER_CONFIRM` carrying it (see docs/mcp.md). Default
   * true; `false` hides the servers' tools that need it.
   */
  readonly elicitation?: boolean;
  /**
   * Declare the `sampling` capability: a server's `sampling/createMessage` during a tool call is
   * answered by the agent's model (or `model`) through its `onModelCall` chain, under `policy`
   * (default `'ask'`: a confirmation first) and a `maxTokens` cap. `false` declares nothing.
   */
  readonly sampling?: McpSamplingOptions | false;
}

/**
 * Value of the `CUSTOM {name: 'mcp_server_disconnected'}` event emitted when a call fails
 * because its server is gone (the process exited, the HTTP session ended).
 */
export interface McpServerDisconnectedValue {
  readonly server: string;
  readonly tool: string;
  readonly toolCallId: string;
  readonly reason: string;
}

// Every option, typed against McpOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<McpOptions>({
  servers: true,
  prefix: true,
  clientInfo: true,
  onError: true,
  filter: true,
  closeOnShutdown: true,
  elicitation: true,
  sampling: true,
});

/**
 * Tools from Model Context Protocol servers, for any agent: connect once, then pass the
 * middleware to agents, which register the servers' tools like their own (so permissions,
 * confirmation, tracing, limits and timeouts apply unchanged).
 *
 * - Tool names are `<server>__<tool>` (`prefix: false` keeps the servers' names); each tool's
 *   JSON Schema is what the model sees and what arguments are validated against before a call.
 * - `readOnlyHint` makes a tool read-only (and concurrency-safe with `idempotentHint`).
 * - A call's signal cancels the MCP request; progress notifications stream as live progress;
 *   images, audio and binary resources in results become data blocks.
 * - When a server announces a changed tool list, it is read again: `tools()` returns the new
 *   set, and agents already using the middleware offer it at their next model request.
 * - `agent.shutdown()` closes the connections (stdio servers stopped, HTTP sessions ended),
 *   unless `closeOnShutdown: false`.
 * - A server that goes away mid-call gives that call an `error` result and a `CUSTOM
 *   {name: 'mcp_server_disconnected'}` event; the reply goes on, and later calls of its tools
 *   get an error result at once.
 *
 * @example
 * ```ts
 * const mcp = await McpMiddleware.connect({ servers: {
 *   everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
 *   remote: { url: 'http://127.0.0.1:3001/mcp', headers: { authorization: `Bearer ${token}` } },
 * } });
 * const agent = new Agent({ model, middlewares: [mcp] });
 * await agent.call('Add 2 and 3 with the get-sum tool.');
 * await agent.shutdown(); // closes the connections (or mcp.close() yourself)
 * ```
 */
export class McpMiddleware implements Middleware {
  private readonly origins = new WeakMap<Tool, McpToolOrigin>();
  private readonly cache = new Map<string, { readonly signature: string; readonly tool: Tool }>();
  private current: readonly Tool[] = [];

  private constructor(
    private readonly connections: Map<string, McpConnection>,
    private readonly prefix: boolean,
    private readonly filter: ((name: string, origin: McpToolOrigin) => boolean) | undefined,
    private readonly closeOnShutdown: boolean,
  ) {}

  /**
   * Connects to every server (in parallel) and reads their tools. Rejects with an error naming
   * the server when one cannot be reached or started (the others are closed again), or when
   * the configuration is wrong (before anything starts).
   */
  static async connect(options: McpOptions): Promise<McpMiddleware> {
    checkOptionKeys('McpMiddleware.connect', options, OPTION_KEYS, { foreign: { mcpServers: 'servers' } });
    if (
      typeof options !== 'object' ||
      options === null ||
      typeof options.servers !== 'object' ||
      options.servers === null
    ) {
      throw new OptionsError(
        'invalid_option',
        'McpMiddleware.connect.servers',
        'McpMiddleware.connect needs { servers: { <name>: { command, args? } | { url, headers? } } }.',
      );
    }
    checkSamplingOptions(options.sampling);
    const entries = Object.entries(options.servers);
    for (const [name, config] of entries) checkServerConfig(name, config);
    const clientInfo = options.clientInfo ?? { name: 'rxscope', version: '0.1.0' };
    const onError = options.onError ?? ((e: Error) => console.warn('[rxscope mcp]', e.message, e.cause ?? ''));
    // Created first so that a tool list changing during the handshake of another server is picked up.
    const middleware = new McpMiddleware(
      new Map(),
      options.prefix ?? true,
      options.filter,
      options.closeOnShutdown ?? true,
    );
    const settled = await Promise.allSettled(
      entries.map(([name, config]) =>
        McpConnection.open(name, config, {
          clientInfo,
          onError,
          ...(options.elicitation !== undefined ? { elicitation: options.elicitation } : {}),
          ...(options.sampling !== undefined ? { sampling: options.sampling } : {}),
          onToolsChanged: () => {
            try {
              middleware.rebuild();
            } catch (e) {
              onError(e as Error);
            }
          },
        }),
      ),
    );
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    const opened = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    if (failed) {
      await Promise.allSettled(opened.map((c) => c.close()));
      throw failed.reason;
    }
    for (const c of opened) middleware.connections.set(c.name, c);
    try {
      middleware.rebuild();
    } catch (e) {
      await middleware.close();
      throw e;
    }
    return middleware;
  }

  /** The servers' tools as rxscope tools (the current lists). */
  tools(): readonly Tool[] {
    return this.current;
  }

  /** The server and server-side name of one of this middleware's tools. */
  originOf(tool: Tool): McpToolOrigin | undefined {
    return this.origins.get(tool);
  }

  /** Each server's state: `'connected'`, or why it is not. */
  status(): Record<string, string> {
    return Object.fromEntries([...this.connections].map(([name, c]) => [name, c.closed ?? 'connected']));
  }

  /** The live connection to one server (to call it directly, or read its instructions). */
  connection(server: string): McpConnection | undefined {
    return this.connections.get(server);
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    const origin = this.origins.get(input.tool);
    if (!origin) return next(input);
    return next(input).pipe(
      catchError((error: unknown) => {
        if (!(error instanceof McpServerClosedError)) return throwError(() => error as Error);
        const value: McpServerDisconnectedValue = {
          server: origin.server,
          tool: origin.tool,
          toolCallId: input.toolCall.id,
          reason: this.connections.get(origin.server)?.closed ?? error.message,
        };
        // The event first, then the failure (which the loop turns into the call's error result).
        return concat(
          of(ctx.event('CUSTOM', { name: 'mcp_server_disconnected', value })),
          throwError(() => error),
        );
      }),
    );
  }

  /** Called by `agent.shutdown()`: closes every connection unless `closeOnShutdown: false`. */
  async onShutdown(): Promise<void> {
    if (this.closeOnShutdown) await this.close();
  }

  /** Closes every connection (stdio servers are stopped). Tools of this middleware then fail with an error result. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.connections.values()].map((c) => c.close()));
  }

  /** Rebuilds the tool list from the connections, keeping the objects of unchanged tools. */
  private rebuild(): void {
    const tools: Tool[] = [];
    const owners = new Map<string, string>();
    for (const connection of this.connections.values()) {
      const { include, exclude } = connection.config;
      for (const info of connection.tools) {
        if (include && !include.includes(info.name)) continue;
        if (exclude?.includes(info.name)) continue;
        const name = mcpToolName(connection.name, info.name, this.prefix);
        if (this.filter && !this.filter(name, { server: connection.name, tool: info.name })) continue;
        const owner = `"${info.name}" of server "${connection.name}"`;
        const clash = owners.get(name);
        if (clash) {
          throw new Error(
            `MCP tools ${clash} and ${owner} would both be named "${name}"; use prefix: true or exclude one.`,
          );
        }
        owners.set(name, owner);
        const signature = JSON.stringify(info);
        const key = `${connection.name}\u0000${name}`;
        let cached = this.cache.get(key);
        if (!cached || cached.signature !== signature) {
          cached = { signature, tool: mcpTool(connection, info, name) };
          this.cache.set(key, cached);
          this.origins.set(cached.tool, { server: connection.name, tool: info.name });
        }
        tools.push(cached.tool);
      }
    }
    this.current = tools;
  }
}
