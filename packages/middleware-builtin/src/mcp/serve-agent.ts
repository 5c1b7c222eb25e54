import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Agent, checkOptionKeys, OptionsError, optionKeys } from '@rxscope/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { runAgentForCall } from './agent-tool-handler.js';

/**
 * Options of `serveAgentOverMcp`.
 *
 * @example
 * ```ts
 * const options: ServeAgentOptions = { name: 'support', transport: { port: 3001 } };
 * ```
 */
export interface ServeAgentOptions {
  /** Name of the tool (and of the server). Default: the agent's name. */
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

/** One MCP server (one per session) offering the agent as a tool and its session as a resource. */
function agentServer(agent: Agent, toolName: string, description: string, version: string): McpServer {
  const server = new McpServer({ name: toolName, version });
  server.registerTool(
    toolName,
    {
      description,
      inputSchema: { message: z.string().min(1).describe('What to ask or tell the agent.') },
      annotations: { title: `${agent.name} agent`, readOnlyHint: false, openWorldHint: true },
    },
    ({ message }, extra) =>
      runAgentForCall(agent, message, {
        signal: extra.signal,
        sendNotification: extra.sendNotification,
        ...(extra._meta?.progressToken !== undefined ? { progressToken: extra._meta.progressToken } : {}),
      }),
  );
  const uri = `agent://${encodeURIComponent(toolName)}/session`;
  server.registerResource(
    'session',
    uri,
    {
      title: `${agent.name}: session`,
      description: "The agent's saved state: its conversation and settings (JSON).",
      mimeType: 'application/json',
    },
    () => ({ contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(agent.saveState()) }] }),
  );
  return server;
}

// Every option, typed against ServeAgentOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<ServeAgentOptions>({ name: true, description: true, transport: true, version: true });

/**
 * Serves an agent over the Model Context Protocol, so Claude Desktop, IDEs and other agents can
 * call it: one tool, named after the agent, takes `{message}` and returns the reply's final
 * text; the reply's text streams out as progress notifications while it runs, and cancelling
 * the call cancels the reply. The agent's session is offered as the resource
 * `agent://<name>/session`. Replies run one at a time (the agent's own queue), whoever calls.
 *
 * @example
 * ```ts
 * const served = await serveAgentOverMcp(agent, { name: 'support', transport: { port: 0, host: '127.0.0.1' } });
 * console.log(`MCP endpoint: ${served.url}`);
 * // ... later
 * await served.close();
 * ```
 */
export function serveAgentOverMcp(
  agent: Agent,
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
  agent: Agent,
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
export function serveAgentOverMcp(agent: Agent, options: ServeAgentOptions): Promise<ServedAgent>;
export async function serveAgentOverMcp(agent: Agent, options: ServeAgentOptions): Promise<ServedAgent> {
  checkOptionKeys('serveAgentOverMcp', options, OPTION_KEYS);
  const refuse = (key: string, message: string) =>
    new OptionsError('invalid_option', `serveAgentOverMcp.${key}`, message);
  if (typeof options !== 'object' || options === null)
    throw refuse('transport', "serveAgentOverMcp needs options: { transport: 'stdio' } or { transport: { port } }.");
  const toolName = options.name ?? agent.name;
  if (!TOOL_NAME.test(toolName)) {
    throw refuse(
      'name',
      `serveAgentOverMcp: the name "${toolName}" must be 1-64 letters, digits, "_" or "-" (it names the MCP tool).`,
    );
  }
  const description = options.description ?? `Ask the ${agent.name} agent. Send one message; the answer is its reply.`;
  const version = options.version ?? '0.1.0';
  const create = () => agentServer(agent, toolName, description, version);
  if (options.transport === 'stdio') {
    const server = create();
    await server.connect(new StdioServerTransport());
    return { url: undefined, toolName, close: () => server.close() };
  }
  if (typeof options.transport !== 'object' || options.transport === null) {
    throw refuse('transport', "serveAgentOverMcp: transport must be 'stdio' or { port?, host?, path? }.");
  }
  checkOptionKeys('serveAgentOverMcp transport', options.transport, ['port', 'host', 'path']);
  return serveHttp(create, toolName, options.transport);
}

async function serveHttp(
  create: () => McpServer,
  toolName: string,
  { port = 0, host = '127.0.0.1', path = '/mcp' }: ServeAgentHttpTransport,
): Promise<ServedAgentOverHttp> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  let allowedHosts: string[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found: the MCP endpoint is ${path}\n`);
      return;
    }
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    if (existing) return existing.transport.handleRequest(req, res);
    const server = create();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, { transport, server }),
      // A browser page must not reach a local agent through DNS rebinding.
      ...(loopback ? { enableDnsRebindingProtection: true, allowedHosts } : {}),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  const http: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent)
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`MCP endpoint failed: ${String(e)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => resolve());
  });
  const actual = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${actual}`, `localhost:${actual}`, `[::1]:${actual}`];
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${actual}${path}`,
    toolName,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
