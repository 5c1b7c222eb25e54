import { catchError, concat, type Observable, of, throwError } from 'rxjs';
import type {
  ActingInput,
  AgentHandle,
  AgentEvent,
  AgentInput,
  Middleware,
  Msg,
  Next,
  RuntimeContext,
  Tool,
} from '@rxscope/core';
import type { ReadResourceResult, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { checkLogAndRoots, McpLogHub, type McpLogValue, type McpRoot, withServerLogs } from './server-log.js';
import { promptToMessages, readResourceTool } from './resource-tool.js';
import { checkOptionKeys, OptionsError } from '@rxscope/core';
import { McpConnection, McpServerClosedError } from './connection.js';
import {
  type McpOptions,
  type McpPromptEntry,
  type McpResourceEntry,
  type McpServerDisconnectedValue,
  OPTION_KEYS,
} from './mcp-options.js';
import { mcpTool, mcpToolName, type McpToolOrigin } from './mcp-tool.js';
import { checkServerConfig } from './server-config.js';
import { checkSamplingOptions } from './sampling.js';

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
 * - Client capabilities (docs/mcp.md "Client capabilities"): a server's elicitation suspends
 *   the reply with `REQUIRE_USER_CONFIRM` carrying the question; sampling is answered by the
 *   agent's model through its `onModelCall` chain (`sampling.policy`, default `'ask'`); task
 *   tools run through the SDK's task API; `structuredContent` is checked against the
 *   `outputSchema` and is the result; resources and prompts (`resources()`, `prompt(id)`,
 *   `<server>__read_resource`), server logs (`CUSTOM mcp_log`), `roots`, and OAuth
 *   (`authProvider`).
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
  private readonly logs = new McpLogHub();

  private constructor(
    private readonly connections: Map<string, McpConnection>,
    private readonly prefix: boolean,
    private readonly filter: ((name: string, origin: McpToolOrigin) => boolean) | undefined,
    private readonly closeOnShutdown: boolean,
    private readonly resourceTool: boolean,
    private currentRoots: readonly McpRoot[],
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
    checkLogAndRoots(options);
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
      options.resourceTool ?? true,
      options.roots ?? [],
    );
    const onLog = (value: McpLogValue) => {
      middleware.logs.emit(value);
      options.onLog?.(value);
    };
    const settled = await Promise.allSettled(
      entries.map(([name, config]) =>
        McpConnection.open(name, config, {
          clientInfo,
          onError,
          ...(options.elicitation !== undefined ? { elicitation: options.elicitation } : {}),
          ...(options.sampling !== undefined ? { sampling: options.sampling } : {}),
          ...(options.logLevel !== undefined ? { logLevel: options.logLevel } : {}),
          ...(options.roots !== undefined ? { roots: () => middleware.currentRoots } : {}),
          onLog,
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

  /** Every server's resources, as last listed (`notifications/resources/list_changed` reads them again). */
  resources(): readonly McpResourceEntry[] {
    return [...this.connections.values()].flatMap((c) => c.catalog.resources.map((r) => ({ ...r, server: c.name })));
  }

  /** Every server's resource templates (URI templates such as `demo://resource/dynamic/text/{id}`). */
  resourceTemplates(): readonly (ResourceTemplate & { readonly server: string })[] {
    return [...this.connections.values()].flatMap((c) => c.catalog.templates.map((t) => ({ ...t, server: c.name })));
  }

  /** Reads one resource of a server. */
  readResource(server: string, uri: string): Promise<ReadResourceResult> {
    return this.connectionOf(server).catalog.read(uri);
  }

  /** Every server's prompts, each with the `id` that {@link McpMiddleware.prompt} takes. */
  prompts(): readonly McpPromptEntry[] {
    return [...this.connections.values()].flatMap((c) =>
      c.catalog.prompts.map((p) => ({ ...p, server: c.name, id: mcpToolName(c.name, p.name, this.prefix) })),
    );
  }

  /**
   * One prompt as messages, ready to be a reply's input: `agent.reply(await mcp.prompt(id, args))`.
   * `id` as listed by `prompts()` (`<server>__<prompt>`); a wrong id is refused naming the prompts there are.
   */
  async prompt(id: string, args: Readonly<Record<string, string>> = {}): Promise<Msg[]> {
    const entry = this.prompts().find((p) => p.id === id);
    if (!entry) {
      const known = this.prompts().map((p) => p.id);
      throw new OptionsError(
        'invalid_option',
        'McpMiddleware.prompt',
        `No MCP prompt "${id}"; prompts: ${known.join(', ') || 'none'}.`,
      );
    }
    return promptToMessages(await this.connectionOf(entry.server).catalog.prompt(entry.name, args));
  }

  /** Replaces the roots offered to the servers and tells them (they ask for the new list). */
  async setRoots(roots: readonly McpRoot[]): Promise<void> {
    checkLogAndRoots({ roots });
    this.currentRoots = [...roots];
    await Promise.all([...this.connections.values()].map((c) => c.rootsChanged()));
  }

  /** Passes the servers' log messages into the reply as `CUSTOM {name: 'mcp_log'}` events. */
  onAgent(_agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return withServerLogs(ctx, next(input), this.logs);
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

  private connectionOf(server: string): McpConnection {
    const connection = this.connections.get(server);
    if (!connection)
      throw new OptionsError(
        'invalid_option',
        'McpMiddleware',
        `No MCP server "${server}"; servers: ${[...this.connections.keys()].join(', ')}.`,
      );
    return connection;
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
      // The model's way to open resource links and listed resources (unless the server has a tool of that name).
      const reader = mcpToolName(connection.name, 'read_resource', true);
      const offered =
        (!include || include.includes('read_resource')) &&
        !exclude?.includes('read_resource') &&
        (!this.filter || this.filter(reader, { server: connection.name, tool: 'read_resource' }));
      if (this.resourceTool && offered && connection.catalog.hasResources && !owners.has(reader)) {
        const key = `${connection.name}\u0000${reader}`;
        let cached = this.cache.get(key);
        if (!cached) {
          cached = { signature: '', tool: readResourceTool(connection, reader) };
          this.cache.set(key, cached);
        }
        owners.set(reader, `read_resource of server "${connection.name}"`);
        tools.push(cached.tool);
      }
    }
    this.current = tools;
  }
}
