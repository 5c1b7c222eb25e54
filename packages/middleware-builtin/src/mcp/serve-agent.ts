import { randomUUID } from 'node:crypto';
import { Agent, checkOptionKeys, OptionsError, optionKeys } from '@rxscope/core';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { agentServer } from './agent-mcp-server.js';
import { listenMcpHttp } from './mcp-http-sessions.js';

/**
 * What `serveAgentOverMcp` serves: one agent (every MCP session talks to it, one reply at a
 * time, in one conversation), or a factory called once per MCP session with the session's id
 * (the `agent` option of `AgentSessions` has this shape), so each session is a conversation of
 * its own.
 *
 * @example
 * ```ts
 * const perSession: ServedAgentSource = (sessionId) => new Agent({ name: 'support', model, sessionId });
 * ```
 */
export type ServedAgentSource = Agent | ((sessionId: string) => Agent | Promise<Agent>);

/** A session's default idle time before it is ended: 30 minutes. */
const DEFAULT_IDLE_MS = 30 * 60_000;

/**
 * Options of `serveAgentOverMcp`.
 *
 * @example
 * ```ts
 * const options: ServeAgentOptions = { name: 'support', transport: { port: 3001 } };
 * ```
 */
export interface ServeAgentOptions {
  /** Name of the tool (and of the server). Default: the agent's name (required with a factory). */
  readonly name?: string;
  /** What the tool does, for the calling model. Default: "Ask the <name> agent ...". */
  readonly description?: string;
  /**
   * `'stdio'`: this process's stdin/stdout (for Claude Desktop, IDEs and other MCP hosts that
   * start it as a command; keep stdout free of anything else). Or Streamable HTTP on `host`
   * (default `127.0.0.1`), `port` (default 0: a free port) and `path` (default `/mcp`).
   */
  readonly transport: 'stdio' | ServeAgentHttpTransport;
  /** Version the server reports. Default `'0.1.0'`. */
  readonly version?: string;
  /**
   * An HTTP session with no request open for this long, in ms, is ended: its agent (from a
   * factory) is dropped and its next request is answered 404, so the client initializes a new
   * session. A running call keeps its session alive. Default 30 minutes; `Infinity`: never.
   */
  readonly idleTimeoutMs?: number;
}

/**
 * The Streamable HTTP transport of `serveAgentOverMcp`: `host` (default `127.0.0.1`), `port`
 * (default 0: a free port) and `path` (default `/mcp`).
 *
 * @example
 * ```ts
 * const transport: ServeAgentHttpTransport = { host: '127.0.0.1', port: 3001, path: '/mcp' };
 * ```
 */
export interface ServeAgentHttpTransport {
  /** The port to listen on. Default 0: a free port (read it from the served agent's `url`). */
  readonly port?: number;
  /** The address to listen on. Default `127.0.0.1` (loopback, with DNS-rebinding protection). */
  readonly host?: string;
  /** The endpoint's path. Default `/mcp`. */
  readonly path?: string;
}

/**
 * An agent being served (see `serveAgentOverMcp`).
 *
 * @example
 * ```ts
 * const served: ServedAgent = await serveAgentOverMcp(agent, { transport: { port: 0 } });
 * console.log(served.url); await served.close();
 * ```
 */
export interface ServedAgent {
  /** The endpoint of the HTTP transport (`http://127.0.0.1:<port>/mcp`); undefined over stdio. */
  readonly url: string | undefined;
  /** The name of the tool clients call. */
  readonly toolName: string;
  /** Ends every session and stops listening. Replies still running are cancelled. */
  close(): Promise<void>;
}

/**
 * An agent served over Streamable HTTP: what `serveAgentOverMcp` gives for an HTTP
 * `transport`, whose `url` is always there.
 *
 * @example
 * ```ts
 * const served: ServedAgentOverHttp = await serveAgentOverMcp(agent, { transport: { port: 0 } });
 * await fetch(served.url, { method: 'POST', headers, body }); // url: string, no undefined check
 * ```
 */
export interface ServedAgentOverHttp extends ServedAgent {
  /** The endpoint, `http://<host>:<port><path>` (`http://127.0.0.1:<port>/mcp` by default). */
  readonly url: string;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

// Every option, typed against ServeAgentOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<ServeAgentOptions>({
  name: true,
  description: true,
  transport: true,
  version: true,
  idleTimeoutMs: true,
});

/**
 * Serves an agent over the Model Context Protocol, so Claude Desktop, IDEs and other agents can
 * call it: one tool, named after the agent, takes `{message}` and returns the reply's final
 * text; the reply's text streams out as progress notifications while it runs, and cancelling
 * the call cancels the reply. The agent's session is offered as the resource
 * `agent://<name>/session`. Given one agent, every MCP session shares it (replies run one at a
 * time, the agent's own queue); given a factory, each MCP session has its own agent, created with
 * the session's id, ended after `idleTimeoutMs` without a request. A reply that waits for a
 * confirmation asks the client by elicitation (approve or deny, the arguments to edit) when the
 * client declares it. The server has the `logging` capability: the reply's tool calls and its
 * end go to the client as log messages at the level it set.
 *
 * @example
 * ```ts
 * const served = await serveAgentOverMcp(agent, { name: 'support', transport: { port: 0, host: '127.0.0.1' } });
 * console.log(`MCP endpoint: ${served.url}`);
 * // ... later
 * await served.close();
 * // one conversation per MCP session:
 * await serveAgentOverMcp((sessionId) => new Agent({ name: 'support', model, sessionId }), { name: 'support', transport: { port: 3001 } });
 * ```
 */
export function serveAgentOverMcp(
  agent: ServedAgentSource,
  options: ServeAgentOptions & { readonly transport: ServeAgentHttpTransport },
): Promise<ServedAgentOverHttp>;
/**
 * Serves an agent over MCP on this process's stdin and stdout (for a host that starts it as a
 * command); the served agent has no `url`.
 *
 * @example
 * ```ts
 * const served = await serveAgentOverMcp(agent, { transport: 'stdio' }); // keep stdout free of logs
 * ```
 */
export function serveAgentOverMcp(
  agent: ServedAgentSource,
  options: ServeAgentOptions & { readonly transport: 'stdio' },
): Promise<ServedAgent>;
/**
 * Serves an agent over MCP with a transport known only at run time: its `url` is there for HTTP,
 * `undefined` over stdio.
 *
 * @example
 * ```ts
 * const served = await serveAgentOverMcp(agent, { transport: process.env.MCP_STDIO ? 'stdio' : { port: 3001 } });
 * ```
 */
export function serveAgentOverMcp(agent: ServedAgentSource, options: ServeAgentOptions): Promise<ServedAgent>;
export async function serveAgentOverMcp(source: ServedAgentSource, options: ServeAgentOptions): Promise<ServedAgent> {
  checkOptionKeys('serveAgentOverMcp', options, OPTION_KEYS);
  const refuse = (key: string, message: string) =>
    new OptionsError('invalid_option', `serveAgentOverMcp.${key}`, message);
  if (typeof options !== 'object' || options === null)
    throw refuse('transport', "serveAgentOverMcp needs options: { transport: 'stdio' } or { transport: { port } }.");
  const single = source instanceof Agent ? source : undefined;
  if (!single && typeof source !== 'function')
    throw refuse('agent', 'serveAgentOverMcp: serve an Agent, or a function (sessionId) => Agent for one per session.');
  const toolName = options.name ?? single?.name;
  if (toolName === undefined)
    throw refuse('name', 'serveAgentOverMcp: with an agent factory, give the tool a `name` (no agent exists yet).');
  if (!TOOL_NAME.test(toolName)) {
    throw refuse(
      'name',
      `serveAgentOverMcp: the name "${toolName}" must be 1-64 letters, digits, "_" or "-" (it names the MCP tool).`,
    );
  }
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_MS;
  if (typeof idleTimeoutMs !== 'number' || !(idleTimeoutMs > 0))
    throw refuse('idleTimeoutMs', 'serveAgentOverMcp: `idleTimeoutMs` must be a positive number of ms (or Infinity).');
  const description =
    options.description ?? `Ask the ${single?.name ?? toolName} agent. Send one message; the answer is its reply.`;
  const version = options.version ?? '0.1.0';
  const create = (sessionId: string) => {
    let agent: Promise<Agent> | undefined;
    const factory = source as (sessionId: string) => Agent | Promise<Agent>;
    return agentServer({
      toolName,
      description,
      version,
      agent: () => (single ? Promise.resolve(single) : (agent ??= Promise.resolve().then(() => factory(sessionId)))),
    });
  };
  if (options.transport === 'stdio') {
    const server = create(randomUUID());
    await server.connect(new StdioServerTransport());
    return { url: undefined, toolName, close: () => server.close() };
  }
  if (typeof options.transport !== 'object' || options.transport === null) {
    throw refuse('transport', "serveAgentOverMcp: transport must be 'stdio' or { port?, host?, path? }.");
  }
  checkOptionKeys('serveAgentOverMcp transport', options.transport, ['port', 'host', 'path']);
  const { port = 0, host = '127.0.0.1', path = '/mcp' } = options.transport;
  const listener = await listenMcpHttp({ port, host, path, idleTimeoutMs, create });
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shownHost}:${listener.port}${path}`, toolName, close: () => listener.close() };
}
