/**
 * The node-service: a multi-session chat service over HTTP. Every session has one agent; a
 * reply started by a POST runs detached (AgentSessions) and its events go to the session's
 * bounded replay log, served as SSE with Last-Event-ID. Routes: docs/node-services.md.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Agent, type ChatModel } from '@rxscope/core';
import { TodoListMiddleware } from '@rxscope/harness';
import { type TextToSpeech, TTSMiddleware } from '@rxscope/middleware-builtin/tts';
import {
  AgentSessions,
  createAgentSseHandler,
  HttpError,
  InMemorySessionEventBus,
  readJsonBody,
  requireJsonContentType,
  sendHttpError,
  type SessionEventBus,
} from '@rxscope/core/node';
import { DevtoolsMiddleware, DevtoolsRecorder, instrumentMiddlewares } from '@rxscope/devtools';
import { createDevtoolsHandler } from '@rxscope/devtools/node';
import { defer, finalize } from 'rxjs';
import { chatReply } from './chat-reply.js';
import { checkConfirmations } from './confirmations.js';
import { AUDITOR_PROMPT_START } from './offline.js';
import { serveStatic } from './static-files.js';
import { createTools, type Refund } from './tools.js';

/** Options of {@link startService}. */
export interface ServiceOptions {
  readonly model: ChatModel;
  /** Shown by `/api/diagnostics`: `'offline'` or the real model's name. */
  readonly modelLabel: string;
  /** Requests the offline model server received (for `/api/diagnostics`). */
  readonly modelRequests?: () => readonly { readonly completed: boolean; readonly clientClosed: boolean }[];
  readonly port?: number;
  readonly host?: string;
  /** Served at `/`; unknown non-API GETs get its `index.html`. */
  readonly staticDir: string;
  /** Origins allowed by CORS; `'*'` allows any. */
  readonly corsOrigins: readonly string[];
  /** Where the replay logs live. Default: in memory. */
  readonly bus?: SessionEventBus;
  /** SSE heartbeat interval. Default 15 s. */
  readonly heartbeatMs?: number;
  /**
   * Bytes an event stream may hold for a client that does not read; past this its connection is
   * dropped (the client reconnects with `Last-Event-ID`). Default 16 MiB (`createAgentSseHandler`'s).
   */
  readonly maxQueuedBytes?: number;
  /** Speak every reply: each finished text block is followed by a WAV audio data block. */
  readonly tts?: TextToSpeech;
  /**
   * The devtools at `/_devtools` (every reply recorded, the timeline UI, its API and live feed).
   * `enabled: false` records nothing and mounts nothing.
   */
  readonly devtools?: { readonly enabled: boolean; readonly uiDir?: string };
}

export interface RunningService {
  readonly url: string;
  readonly server: Server;
  readonly sessions: AgentSessions;
  readonly refunds: readonly Refund[];
  /** What the devtools recorded, when they are on. */
  readonly devtools?: DevtoolsRecorder;
  /**
   * Graceful shutdown (SIGTERM): new replies are refused with 503, running replies stop at a safe
   * point within `graceMs` and end on their streams with `REPLY_END {finishReason: 'shutdown'}`;
   * then the server closes. Resolves with the sessions whose reply was suspended.
   */
  shutdown(options: { readonly graceMs: number; readonly reason: string }): Promise<readonly string[]>;
  close(): Promise<void>;
}

const SYSTEM_PROMPT =
  'You are a concise customer-support assistant. Use order_status to look orders up and refund_order to refund them; ' +
  'a person confirms every refund. To audit an order, call order_status and order_auditor together, then refund if allowed. ' +
  'For work of several steps, keep a task list with write_todos.';
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;
const AUDITOR_PROMPT = `${AUDITOR_PROMPT_START}: look the order up with order_status and say in one sentence whether a refund is allowed.`;

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const refunds: Refund[] = [];
  const tools = createTools(refunds);
  const recorder = options.devtools?.enabled ? new DevtoolsRecorder({ content: true }) : undefined;
  const middlewares = [
    new TodoListMiddleware(),
    ...(options.tts ? [new TTSMiddleware({ tts: options.tts, mode: 'batch' })] : []),
  ];
  const sessions = new AgentSessions({
    // An Agent is one conversation: one per session. The task list (`write_todos`, emitted as
    // `CUSTOM todos_updated`) is the harness's; the Angular app shows it. The auditor is a
    // subagent (an agent used as a tool) of the session's agent.
    agent: (sessionId) => {
      const auditor = new Agent({
        name: 'auditor',
        sysPrompt: AUDITOR_PROMPT,
        model: options.model,
        tools: tools.filter((t) => t.name === 'order_status'),
        middlewares: recorder ? [new DevtoolsMiddleware({ recorder })] : [],
        sessionId: `${sessionId}-auditor`,
      });
      return new Agent({
        name: 'assistant',
        sysPrompt: SYSTEM_PROMPT,
        model: options.model,
        tools: [
          ...tools,
          auditor.asTool({ name: 'order_auditor', description: 'Audits an order: says whether it may be refunded.' }),
        ],
        middlewares: recorder ? instrumentMiddlewares(recorder, middlewares) : middlewares,
        sessionId,
      });
    },
    bus: options.bus ?? new InMemorySessionEventBus({ maxEvents: 1000 }),
  });
  const cors = (req: IncomingMessage): Record<string, string> => {
    const origin = req.headers.origin;
    if (!origin) return {};
    const allowed = options.corsOrigins.includes('*') || options.corsOrigins.includes(origin);
    return allowed
      ? { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': 'content-type' }
      : {};
  };
  const json = (req: IncomingMessage, res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      ...cors(req),
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  };
  const sessionId = (raw: string): string => {
    const id = decodeURIComponent(raw);
    if (!SESSION_ID.test(id))
      throw new HttpError(400, 'A session id is 1 to 64 letters, digits, "_" or "-".', 'invalid_session_id');
    return id;
  };

  // Sessions whose reply runs attached to a `/chat` request (the detached ones are in `sessions`).
  const attached = new Set<string>();
  const streamChat = (req: IncomingMessage, res: ServerResponse, id: string) =>
    createAgentSseHandler({
      heartbeatMs: options.heartbeatMs ?? 15_000,
      headers: cors(req),
      sessionId: id,
      events: async (_req, { body }) => {
        const events$ = chatReply(await sessions.agent(id), await body(), tools);
        return defer(() => {
          attached.add(id);
          return events$;
        }).pipe(finalize(() => attached.delete(id)));
      },
    })(req, res);

  const streamEvents = (req: IncomingMessage, res: ServerResponse, id: string) =>
    createAgentSseHandler({
      heartbeatMs: options.heartbeatMs ?? 15_000,
      retryMs: 1000,
      ...(options.maxQueuedBytes !== undefined ? { maxQueuedBytes: options.maxQueuedBytes } : {}),
      headers: cors(req),
      sessionId: id,
      events: (_req, { lastEventId }) => sessions.events(id, lastEventId ? { lastEventId } : {}),
    })(req, res);

  const api = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const method = req.method ?? 'GET';
    if (method === 'POST' && path === '/api/sessions') return json(req, res, 201, { sessionId: randomUUID() });
    if (method === 'GET' && path === '/api/diagnostics') {
      return json(req, res, 200, {
        model: options.modelLabel,
        modelRequests: (options.modelRequests?.() ?? []).map((r, index) => ({
          index,
          completed: r.completed,
          clientClosed: r.clientClosed,
        })),
        running: [...sessions.runningSessions(), ...attached],
        refunds,
      });
    }
    const match = /^\/api\/sessions\/([^/]+)(?:\/(events|messages|confirmations|cancel|chat))?$/.exec(path);
    if (!match) throw new HttpError(404, `No route ${method} ${path}.`, 'not_found');
    const id = sessionId(match[1]!);
    const action = match[2];
    if (method === 'GET' && action === undefined) {
      const agent = await sessions.agent(id);
      const pending = agent.pending;
      return json(req, res, 200, {
        sessionId: id,
        running: sessions.running(id),
        pending: pending?.confirm.length ? { replyId: pending.replyId, toolCalls: pending.confirm } : null,
        // A reply waiting for confirmation is not in the conversation yet: its message so far
        // (the text streamed before the calls, the calls) ends the list, so a reloaded page keeps it.
        messages: pending ? [...agent.context, pending.message] : agent.context,
      });
    }
    if (method === 'GET' && action === 'events') {
      await streamEvents(req, res, id);
      return;
    }
    if (method === 'POST' && action === 'messages') {
      requireJsonContentType(req, 'A message'); // no reply started by a cross-site form post
      const body = (await readJsonBody(req)) as { text?: unknown } | undefined;
      if (typeof body?.text !== 'string' || !body.text.trim())
        throw new HttpError(400, 'The body needs "text": a non-empty string.', 'invalid_body');
      const { replyId } = await sessions.start(id, body.text);
      return json(req, res, 202, { sessionId: id, replyId });
    }
    if (method === 'POST' && action === 'confirmations') {
      requireJsonContentType(req, 'A confirmation'); // no refund confirmed by a cross-site form post
      const body = await readJsonBody(req);
      const { results, replyId: answering } = checkConfirmations(body, (await sessions.agent(id)).pending, tools);
      const { replyId } = await sessions.start(id, {
        type: 'USER_CONFIRM_RESULT',
        results,
        ...(answering ? { replyId: answering } : {}),
      });
      return json(req, res, 202, { sessionId: id, replyId });
    }
    if (method === 'POST' && action === 'chat') {
      requireJsonContentType(req, 'A chat request'); // no reply started by a cross-site form post
      await streamChat(req, res, id);
      return;
    }
    if (method === 'POST' && action === 'cancel') return json(req, res, 200, { cancelled: await sessions.cancel(id) });
    throw new HttpError(405, `${method} is not allowed on ${path}.`, 'method_not_allowed');
  };

  // Loopback clients only (the devtools' default): they show every conversation of the service.
  const devtools = recorder
    ? createDevtoolsHandler({
        recorder,
        enabled: true,
        basePath: '/_devtools',
        ...(options.devtools?.uiDir ? { uiDir: options.devtools.uiDir } : {}),
      })
    : undefined;

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://service').pathname;
    if (devtools && (path === '/_devtools' || path.startsWith('/_devtools/'))) return devtools(req, res);
    void (async () => {
      try {
        if (req.method === 'OPTIONS') {
          res.writeHead(204, {
            ...cors(req),
            'access-control-allow-methods': 'GET, POST, OPTIONS',
            'access-control-allow-headers': 'content-type, last-event-id',
            'access-control-max-age': '600',
          });
          res.end();
          return;
        }
        if (path.startsWith('/api/')) return await api(req, res, path);
        if ((req.method === 'GET' || req.method === 'HEAD') && (await serveStatic(options.staticDir, req, res, path)))
          return;
        throw new HttpError(404, `Nothing at ${path}.`, 'not_found');
      } catch (error) {
        if (sendHttpError(res, error, cors(req)) >= 500) console.error('[node-service]', error);
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    server,
    sessions,
    refunds,
    ...(recorder ? { devtools: recorder } : {}),
    shutdown: async ({ graceMs, reason }) => {
      const report = await sessions.shutdown({ graceMs, reason });
      // No new connection; open streams get a moment to send the last events (REPLY_END) before they are cut.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise((r) => setTimeout(r, 250));
      await sessions.close();
      server.closeAllConnections();
      await closed;
      return report.suspended;
    },
    close: async () => {
      await sessions.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
