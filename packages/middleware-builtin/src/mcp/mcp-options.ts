import { optionKeys } from '@rxscope/core';
import type { Prompt, Resource } from '@modelcontextprotocol/sdk/types.js';
import type { McpClientInfo } from './connection.js';
import type { McpToolOrigin } from './mcp-tool.js';
import type { McpSamplingOptions } from './sampling.js';
import type { McpServerConfig } from './server-config.js';
import type { McpLogLevel, McpLogValue, McpRoot } from './server-log.js';

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
  /**
   * Ask servers that log for messages of this level and above (`debug` … `emergency`). Their
   * messages reach the replies running meanwhile as `CUSTOM {name: 'mcp_log'}` events.
   */
  readonly logLevel?: McpLogLevel;
  /** Receives every server log message, also those arriving while no reply runs. */
  readonly onLog?: (value: McpLogValue) => void;
  /** Roots offered to the servers (`file://` URIs of folders); declares `roots` with list-changed. Change them with `setRoots`. */
  readonly roots?: readonly McpRoot[];
  /** Offer `<server>__read_resource` for servers with resources. Default true. */
  readonly resourceTool?: boolean;
}

/**
 * A server's resource, with the server it belongs to.
 *
 * @example
 * ```ts
 * const entry: McpResourceEntry = mcp.resources()[0]!; // { server: 'everything', uri: 'demo://…', name: '…' }
 * ```
 */
export type McpResourceEntry = Resource & { readonly server: string };
/**
 * A server's prompt, with the server and the name `prompt()` takes (`<server>__<prompt>`).
 *
 * @example
 * ```ts
 * const entry: McpPromptEntry = mcp.prompts()[0]!; // { server: 'everything', id: 'everything__simple-prompt', name: 'simple-prompt' }
 * ```
 */
export type McpPromptEntry = Prompt & { readonly server: string; readonly id: string };

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
/** Every option, typed against McpOptions (the refusal of unknown keys). */
export const OPTION_KEYS = optionKeys<McpOptions>({
  servers: true,
  prefix: true,
  clientInfo: true,
  onError: true,
  filter: true,
  closeOnShutdown: true,
  elicitation: true,
  sampling: true,
  logLevel: true,
  onLog: true,
  roots: true,
  resourceTool: true,
});
