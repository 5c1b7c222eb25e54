// An MCP server for the behaviours no published server lets a test observe: it records the
// cancellations it receives, exits in the middle of a call, and adds tools on request. Built on
// the official SDK's McpServer; run with tsx. Over stdio by default; with `--http` it serves
// Streamable HTTP on 127.0.0.1 and prints `listening <url>` on stdout.
//   PROBE_LOG  file to which it appends one line per event it wants the test to see
import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const log = (line: string) => {
  if (process.env['PROBE_LOG']) appendFileSync(process.env['PROBE_LOG'], `${line}\n`);
};

function probeServer(): McpServer {
  const server = new McpServer(
    { name: 'probe', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, logging: {} } },
  );
  server.registerTool('log', { description: 'Logs one message at every level, then answers.' }, async (extra) => {
    const levels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
    // sendLoggingMessage drops the levels below the one the client set (logging/setLevel).
    for (const level of levels) await server.sendLoggingMessage({ level, data: `a ${level} message` }, extra.sessionId);
    return { content: [{ type: 'text', text: 'logged' }] };
  });
  server.registerTool(
    'wait',
    {
      description: 'Waits ms milliseconds, sending a progress notification every 100 ms.',
      inputSchema: { ms: z.number().int().min(0) },
      annotations: { readOnlyHint: true },
    },
    async ({ ms }, extra) => {
      log(`started wait ${extra.requestId}`);
      const token = extra._meta?.progressToken;
      const steps = Math.max(1, Math.round(ms / 100));
      for (let i = 1; i <= steps; i++) {
        const aborted = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), ms / steps);
          extra.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(true)), { once: true });
        });
        if (aborted) {
          log(`cancelled wait ${extra.requestId}: ${String(extra.signal.reason)}`);
          return { content: [{ type: 'text', text: 'cancelled' }] };
        }
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
          });
        }
      }
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    },
  );
  server.registerTool('exit', { description: 'Exits the server process in the middle of the call.' }, async () => {
    log('exiting');
    setTimeout(() => process.exit(7), 100);
    return new Promise(() => undefined);
  });
  server.registerTool(
    'add_tool',
    { description: 'Adds a tool named `name` that answers `hello from <name>`.', inputSchema: { name: z.string() } },
    ({ name }) => {
      server.registerTool(name, { description: `Added at run time.`, annotations: { readOnlyHint: true } }, () => ({
        content: [{ type: 'text', text: `hello from ${name}` }],
      }));
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  );
  // A resource and a prompt from the start (their capabilities are declared at connection), more on request.
  const addResourceAndPrompt = (name: string) => {
    server.registerResource(name, `probe://${name}`, { mimeType: 'text/plain' }, (uri) => ({
      contents: [{ uri: uri.href, text: `contents of ${name}` }],
    }));
    server.registerPrompt(`${name}-prompt`, { description: `Asks about ${name}.` }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Tell me about ${name}.` } }],
    }));
  };
  addResourceAndPrompt('first');
  server.registerTool(
    'add_resource',
    { description: 'Adds a resource probe://<name> and a prompt <name>-prompt.', inputSchema: { name: z.string() } },
    ({ name }) => {
      addResourceAndPrompt(name);
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  );
  server.registerTool('fail', { description: 'Always fails.' }, () => ({
    isError: true,
    content: [{ type: 'text', text: 'the disk is full' }],
  }));
  return server;
}

async function serveHttp(): Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    if (existing) return void existing.handleRequest(req, res);
    log(`new session, authorization: ${req.headers.authorization ?? '(none)'}`);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    transport.onclose = () => {
      log(`session closed ${transport.sessionId ?? ''}`);
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    void probeServer()
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
}

if (process.argv.includes('--http')) void serveHttp();
else void probeServer().connect(new StdioServerTransport());
