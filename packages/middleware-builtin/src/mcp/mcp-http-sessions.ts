import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** How the HTTP endpoint runs its sessions. */
export interface McpHttpEndpoint {
  readonly port: number;
  readonly host: string;
  readonly path: string;
  /** A session with no request for this long is ended (its next request gets 404). */
  readonly idleTimeoutMs: number;
  /** The MCP server of a new session. */
  readonly create: (sessionId: string) => McpServer;
}

/** The listening endpoint: its port and how to stop it. */
export interface McpHttpListener {
  readonly port: number;
  close(): Promise<void>;
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** Requests of the session whose response is still open (a running call keeps it alive). */
  open: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** The JSON-RPC error the Streamable HTTP transport prescribes for an unknown session, with 404. */
function sessionNotFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32001, message: 'Session not found: it ended or never existed; initialize a new one.' },
      id: null,
    }),
  );
}

/**
 * Serves MCP over Streamable HTTP, one MCP server per session. A request naming a session that
 * is not (or no longer) there is answered 404, so the client initializes a new one, as the
 * transport requires; a session idle for `idleTimeoutMs` (no request open) is ended.
 */
export async function listenMcpHttp(endpoint: McpHttpEndpoint): Promise<McpHttpListener> {
  const { host, path, idleTimeoutMs } = endpoint;
  const sessions = new Map<string, Session>();
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  let allowedHosts: string[] = [];

  const end = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    clearTimeout(session.timer);
    void session.server.close().catch(() => undefined);
  };
  const idle = (id: string, session: Session) => {
    clearTimeout(session.timer);
    if (session.open === 0 && Number.isFinite(idleTimeoutMs))
      session.timer = setTimeout(() => end(id), idleTimeoutMs).unref();
  };
  const track = (id: string, session: Session, res: ServerResponse) => {
    session.open++;
    clearTimeout(session.timer);
    res.once('close', () => {
      session.open--;
      if (sessions.get(id) === session) idle(id, session);
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found: the MCP endpoint is ${path}\n`);
      return;
    }
    const id = req.headers['mcp-session-id'];
    if (id !== undefined) {
      const existing = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!existing || typeof id !== 'string') return sessionNotFound(res);
      // A GET stream stays open for server messages; it does not keep the session from expiring.
      if (req.method !== 'GET') track(id, existing, res);
      return existing.transport.handleRequest(req, res);
    }
    // No session id: an initialize request (the transport answers anything else with 400).
    const sessionId = randomUUID();
    const server = endpoint.create(sessionId);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      onsessioninitialized: (sid) => {
        const session: Session = { transport, server, open: 0, timer: undefined };
        sessions.set(sid, session);
        track(sid, session, res);
      },
      // A browser page must not reach a local agent through DNS rebinding.
      ...(loopback ? { enableDnsRebindingProtection: true, allowedHosts } : {}),
    });
    transport.onclose = () => end(sessionId); // a DELETE from the client, or close()
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
    http.listen(endpoint.port, host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  return {
    port,
    close: async () => {
      const all = [...sessions.values()];
      for (const id of [...sessions.keys()]) end(id);
      await Promise.allSettled(all.map((s) => s.server.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
