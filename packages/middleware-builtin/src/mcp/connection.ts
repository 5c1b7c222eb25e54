import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  type ElicitResult,
  ErrorCode,
  McpError,
  type Progress,
  type Tool as McpTool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { isHttpServer, type McpServerConfig } from './server-config.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { authorizationCodeFor, createTransport, McpUnauthorizedError } from './transport.js';
import type { McpElicitation } from './elicitation.js';
import { callToolAsTask, cannotRun, runsAsTask } from './task-call.js';
import { McpCatalog } from './catalog.js';
import type { McpLogLevel, McpLogValue, McpRoot } from './server-log.js';
import type { McpSamplingOptions, McpSamplingRequest } from './sampling.js';
import { RxscopeError } from '@rxscope/core';

/** How a connection identifies itself to servers. */
export interface McpClientInfo {
  readonly name: string;
  readonly version: string;
}

/** Options of {@link McpConnection.open}. */
export interface McpConnectionOptions {
  readonly clientInfo: McpClientInfo;
  /** Called after the server's tool list changed and was read again. */
  readonly onToolsChanged?: (connection: McpConnection) => void;
  /** Failures outside any call (a tool list that could not be read again). */
  readonly onError?: (error: Error) => void;
  /** Declare the `elicitation` capability (form and URL mode). Default true. */
  readonly elicitation?: boolean;
  /** Declare the `sampling` capability, answered as these options say. Default `{}` (policy `'ask'`); `false`: not declared. */
  readonly sampling?: McpSamplingOptions | false;
  /** Asks servers that log (`logging` capability) for messages of this level and above. */
  readonly logLevel?: McpLogLevel;
  /** Receives every log message of the server. */
  readonly onLog?: (value: McpLogValue) => void;
  /** The roots offered to the server (`roots` capability with list-changed); read at each request. */
  readonly roots?: () => readonly McpRoot[];
}

/** Options of one tool call. */
export interface McpCallOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
  /**
   * Answers the server's elicitations made while this call runs. Without it (or outside any call)
   * an elicitation is answered `cancel`.
   */
  readonly onElicit?: (params: McpElicitation) => Promise<ElicitResult>;
  /** Answers the server's sampling requests made while this call runs (else they are refused). */
  readonly onSample?: (params: McpSamplingRequest) => Promise<CreateMessageResult>;
}

/** A call in flight that takes the server's requests. */
interface Inflight {
  readonly onElicit?: ((params: McpElicitation) => Promise<ElicitResult>) | undefined;
  readonly onSample?: ((params: McpSamplingRequest) => Promise<CreateMessageResult>) | undefined;
  waiting: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** How long a server that may have gone away gets to answer a ping. */
const PING_TIMEOUT_MS = 10_000;

/**
 * The error of a call whose server connection closed before it answered (the process exited,
 * the HTTP session ended) or was already closed when the call was made.
 *
 * @example
 * ```ts
 * try { await connection.callTool('echo', {}); } catch (e) { if (e instanceof McpServerClosedError) console.log(e.server); }
 * ```
 */
export class McpServerClosedError extends RxscopeError {
  override readonly name = 'McpServerClosedError';
  readonly code = 'mcp_server_closed';
  constructor(
    readonly server: string,
    reason: string,
  ) {
    super(`MCP server "${server}" is not connected: ${reason}`);
  }
}

const OUTPUT_MISMATCH =
  /(?:Structured content does not match the tool's output schema|Failed to validate structured content): (.*)$/s;

/**
 * The error of a call whose result's `structuredContent` does not match the tool's
 * `outputSchema`: the call gets an `error` result naming the field.
 *
 * @example
 * ```ts
 * new McpOutputSchemaError('structured', 'weather', 'celsius must be number').message;
 * // 'MCP tool "weather" of server "structured" returned structured content that does not match its output schema: celsius must be number'
 * ```
 */
export class McpOutputSchemaError extends RxscopeError {
  override readonly name = 'McpOutputSchemaError';
  readonly code = 'mcp_output_schema';
  constructor(
    readonly server: string,
    readonly tool: string,
    readonly detail: string,
  ) {
    super(
      `MCP tool "${tool}" of server "${server}" returned structured content that does not match its output schema: ${detail}`,
    );
  }
}

/**
 * One live connection to one MCP server, over stdio or Streamable HTTP, on the official SDK's
 * `Client`: it knows the server's tools (all pages, read again when the server says the list
 * changed), calls them with cancellation and progress, and notices when the server goes away.
 *
 * @example
 * ```ts
 * const connection = await McpConnection.open('everything', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
 *   { clientInfo: { name: 'my-app', version: '1.0.0' } });
 * const result = await connection.callTool('echo', { message: 'hi' });
 * await connection.close();
 * ```
 */
export class McpConnection {
  private currentTools: readonly McpTool[] = [];
  private closedReason: string | undefined;
  private closing = false;
  private checking = false;
  private initialised = false;
  private refreshing: Promise<void> = Promise.resolve();
  private readonly inflight: Inflight[] = [];
  private currentCatalog: McpCatalog | undefined;

  private constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly client: Client,
    private readonly options: McpConnectionOptions,
    private readonly transport: Transport,
  ) {}

  /** Starts (stdio) or reaches (HTTP) the server, initialises the session and reads its tools. */
  static open(name: string, config: McpServerConfig, options: McpConnectionOptions): Promise<McpConnection> {
    return McpConnection.openOnce(name, config, options, false);
  }

  /** `authorized`: this is the attempt after an OAuth authorization completed (never a second one). */
  private static async openOnce(
    name: string,
    config: McpServerConfig,
    options: McpConnectionOptions,
    authorized: boolean,
  ): Promise<McpConnection> {
    const client = new Client(
      { name: options.clientInfo.name, version: options.clientInfo.version },
      {
        capabilities: {
          ...(options.elicitation === false ? {} : { elicitation: { form: {}, url: {} } }),
          ...(options.sampling === false ? {} : { sampling: {} }),
          ...(options.roots ? { roots: { listChanged: true } } : {}),
        },
      },
    );
    const transport = createTransport(config);
    const connection = new McpConnection(name, config, client, options, transport);
    client.onclose = () => connection.markClosed(connection.closing ? 'closed' : 'the server closed the connection');
    client.onerror = () => connection.checkAlive();
    if (options.elicitation !== false) {
      client.setRequestHandler(ElicitRequestSchema, (request) =>
        connection.route((c) => c.onElicit?.(request.params), { action: 'cancel' }),
      );
    }
    if (options.roots) {
      const roots = options.roots;
      client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots().map((r) => ({ ...r })) }));
    }
    if (options.sampling !== false) {
      client.setRequestHandler(CreateMessageRequestSchema, (request) =>
        connection.route((c) => c.onSample?.(request.params), undefined),
      );
    }
    try {
      await client.connect(transport);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => connection.refreshTools());
      if (options.onLog) {
        const onLog = options.onLog;
        client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) =>
          onLog({
            server: name,
            level: params.level,
            data: params.data,
            ...(params.logger !== undefined ? { logger: params.logger } : {}),
          }),
        );
      }
      if (options.logLevel && client.getServerCapabilities()?.logging) await client.setLoggingLevel(options.logLevel);
      connection.currentTools = await connection.listAllTools();
      connection.currentCatalog = await McpCatalog.open(client, (e) =>
        options.onError?.(new Error(`MCP server "${name}": ${e.message}`, { cause: e.cause })),
      );
      connection.initialised = true;
    } catch (e) {
      await client.close().catch(() => undefined);
      // OAuth: the person was sent to authorize; with the code, the flow completes and we connect again.
      const code = authorized ? undefined : authorizationCodeFor(config, e);
      if (code) {
        await (transport as StreamableHTTPClientTransport).finishAuth(await code);
        return McpConnection.openOnce(name, config, options, true);
      }
      if (e instanceof UnauthorizedError) throw new McpUnauthorizedError(name, e.message);
      const where = isHttpServer(config) ? config.url : [config.command, ...(config.args ?? [])].join(' ');
      throw new Error(
        `MCP server "${name}" (${where}) could not be connected: ${e instanceof Error ? e.message : String(e)}`,
        {
          cause: e,
        },
      );
    }
    return connection;
  }

  /**
   * The server's tools as it last listed them, without those this client cannot call (a tool
   * that requires a task on a server that takes no task-augmented calls).
   */
  get tools(): readonly McpTool[] {
    const capabilities = this.client.getServerCapabilities();
    return this.currentTools.filter((t) => !cannotRun(t, capabilities));
  }

  /** Why the connection is closed, or `undefined` while it is open. */
  get closed(): string | undefined {
    return this.closedReason;
  }

  /** The server's instructions from the handshake, if it gave any. */
  get instructions(): string | undefined {
    return this.client.getInstructions();
  }

  /**
   * Calls a tool. The signal cancels the request (the server is sent `notifications/cancelled`);
   * progress notifications are passed to `onProgress` and restart the timeout. A closed
   * connection rejects with {@link McpServerClosedError}.
   */
  async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<CallToolResult> {
    if (this.closedReason !== undefined) throw new McpServerClosedError(this.name, this.closedReason);
    const entry: Inflight | undefined =
      options.onElicit || options.onSample
        ? { onElicit: options.onElicit, onSample: options.onSample, waiting: false }
        : undefined;
    if (entry) this.inflight.push(entry);
    try {
      const timeoutMs = this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const info = this.currentTools.find((t) => t.name === tool);
      if (runsAsTask(info, this.client.getServerCapabilities())) {
        return await callToolAsTask(this.client, tool, args, {
          server: this.name,
          timeoutMs,
          signal: options.signal,
          onProgress: options.onProgress,
        });
      }
      const result = await this.client.callTool({ name: tool, arguments: args }, undefined, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onprogress: options.onProgress, resetTimeoutOnProgress: true } : {}),
        timeout: timeoutMs,
      });
      return result as CallToolResult;
    } catch (e) {
      if (e instanceof McpError && e.code === (ErrorCode.ConnectionClosed as number)) {
        throw new McpServerClosedError(this.name, this.closedReason ?? 'the connection closed during the call');
      }
      if (e instanceof UnauthorizedError) throw new McpUnauthorizedError(this.name, e.message);
      // The SDK checks structuredContent against the tool's outputSchema (ajv; its message names the field).
      const mismatch = e instanceof McpError ? OUTPUT_MISMATCH.exec(e.message) : null;
      if (mismatch) throw new McpOutputSchemaError(this.name, tool, mismatch[1]!.replace(/\bdata\//g, ''));
      throw e;
    } finally {
      if (entry) this.inflight.splice(this.inflight.indexOf(entry), 1);
    }
  }

  /** The server's resources, resource templates and prompts (empty lists when it has none). */
  get catalog(): McpCatalog {
    return this.currentCatalog!;
  }

  /** Tells the server that the roots changed (it asks for them again). */
  async rootsChanged(): Promise<void> {
    if (this.closedReason === undefined && this.options.roots) await this.client.sendRootsListChanged();
  }

  /** How sampling requests are answered (`false`: the capability is not declared). */
  get sampling(): McpSamplingOptions | false {
    return this.options.sampling ?? {};
  }

  /**
   * A server's request (elicitation, sampling), given to the call it belongs to. Requests carry
   * no link to the call that caused them, so it goes to the most recent call of this server not
   * already waiting for an answer (calls of one server overlap only for read-only, idempotent
   * tools). Outside any call: `otherwise`, or a refusal when there is none.
   */
  private async route<R>(handle: (call: Inflight) => Promise<R> | undefined, otherwise: R | undefined): Promise<R> {
    const entry = [...this.inflight].reverse().find((c) => !c.waiting);
    const answer = entry ? handle(entry) : undefined;
    if (!entry || !answer) {
      if (otherwise !== undefined) return otherwise;
      throw new McpError(ErrorCode.InvalidRequest, `The client takes this request only during a tool call.`);
    }
    entry.waiting = true;
    try {
      return await answer;
    } finally {
      entry.waiting = false;
    }
  }

  /**
   * Ends the session and, for stdio, stops the server process; over Streamable HTTP the session
   * is ended on the server too (`DELETE`, which a server may decline). Closing twice is harmless.
   */
  async close(): Promise<void> {
    const open = this.closedReason === undefined;
    this.closing = true;
    this.markClosed('closed');
    if (open && this.transport instanceof StreamableHTTPClientTransport) {
      await this.transport.terminateSession().catch(() => undefined);
    }
    await this.client.close();
  }

  private markClosed(reason: string): void {
    this.closedReason ??= reason;
  }

  /**
   * After a transport error, asks the server whether it is still there. Over HTTP a server that
   * dies mid-call only cuts a stream: the SDK retries it and leaves the call waiting. A server
   * that no longer answers a ping is taken as gone: the connection is closed, which fails every
   * call in flight at once (instead of a wait for the timeout).
   */
  private checkAlive(): void {
    if (this.checking || this.closing || this.closedReason !== undefined || !this.initialised) return;
    this.checking = true;
    this.client
      .ping({ timeout: PING_TIMEOUT_MS })
      .then(
        () => undefined,
        (e: unknown) => {
          this.markClosed(`the server stopped answering (${e instanceof Error ? e.message : String(e)})`);
          return this.client.close();
        },
      )
      .catch(() => undefined)
      .finally(() => (this.checking = false));
  }

  private async listAllTools(): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor === undefined ? undefined : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /** Reads the tool list again; notifications arriving meanwhile queue behind (never two reads at once). */
  private refreshTools(): Promise<void> {
    this.refreshing = this.refreshing.then(async () => {
      if (this.closedReason !== undefined) return;
      try {
        this.currentTools = await this.listAllTools();
        this.options.onToolsChanged?.(this);
      } catch (e) {
        this.options.onError?.(
          new Error(`MCP server "${this.name}": the changed tool list could not be read`, { cause: e }),
        );
      }
    });
    return this.refreshing;
  }
}
