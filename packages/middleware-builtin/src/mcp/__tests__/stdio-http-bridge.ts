// Serves a stdio-only MCP server (server-filesystem) over Streamable HTTP, the way MCP proxies
// do: one server process per HTTP session, JSON-RPC messages passed through unchanged, with the
// SDK's own transports on both sides.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpStdioServer } from '../server-config.js';

export interface Bridge {
  readonly url: string;
  close(): Promise<void>;
}

export async function bridgeStdioOverHttp(target: McpStdioServer): Promise<Bridge> {
  const sessions = new Map<string, { http: StreamableHTTPServerTransport; stdio: StdioClientTransport }>();
  const server: Server = createServer((req, res) => {
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    if (existing) return void existing.http.handleRequest(req, res);
    const stdio = new StdioClientTransport({
      command: target.command,
      args: [...(target.args ?? [])],
      stderr: 'ignore',
    });
    const http: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, { http, stdio }),
    });
    // Responses find their POST stream by id; anything else goes to the session's GET stream.
    stdio.onmessage = (message: JSONRPCMessage) => void http.send(message).catch(() => undefined);
    http.onmessage = (message: JSONRPCMessage) => void stdio.send(message).catch(() => undefined);
    http.onclose = () => {
      if (http.sessionId) sessions.delete(http.sessionId);
      void stdio.close();
    };
    void Promise.all([stdio.start(), http.start()]).then(() => http.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      await Promise.allSettled([...sessions.values()].flatMap((s) => [s.http.close(), s.stdio.close()]));
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
