/// <reference types="node" />
// The OpenAI-compatible test server: routes, and a scripted turn sent whole or streamed. The wire
// format, the script, the faults and the recording each have their own file.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { embeddingsResponse } from './embeddings-route.js';
import { moderationResponse } from './moderation-route.js';
import { DROP, errorOfFault, sendFaultedCompletion, STALL, streamPlan } from './faults.js';
import { readBody, sendError, sendJson } from './http-exchange.js';
import {
  ConnectionTracker,
  type MutableRecordedRequest,
  type RecordedBody,
  type RecordedRequest,
} from './recording.js';
import { sendRouteResponse } from './route-response.js';
import { type ServerTurn, ScriptedTurns } from './script.js';
import { speechResponse } from './speech-route.js';
import { type BuiltResponse, buildResponse, sseLines } from './wire-format.js';

/**
 * Options of {@link startOpenAITestServer}.
 *
 * @example
 * ```ts
 * const server = await startOpenAITestServer({ handler: (req, i) => ({ text: `answer #${i}` }), chunkDelayMs: 5 });
 * ```
 */
export interface OpenAITestServerOptions {
  /** Turns answered in order, one per chat completion request. */
  readonly script?: readonly ServerTurn[];
  /** Computes the turn of each request instead of a script (receives the 0-based request index). */
  readonly handler?: (request: RecordedRequest, index: number) => ServerTurn | Promise<ServerTurn>;
  /** Delay before each streamed chunk, in ms. Default 0. */
  readonly chunkDelayMs?: number;
  /** Model name written into responses. Default: the request's `model`, else `test-model`. */
  readonly model?: string;
  /** Keep connections open between requests. Default false: every response closes its connection, so `openConnections()` counts only live requests. */
  readonly keepAlive?: boolean;
}

/**
 * A running OpenAI-compatible test server (see {@link startOpenAITestServer}).
 *
 * @example
 * ```ts
 * const server: OpenAITestServer = await startOpenAITestServer({ script: [{ text: 'hi' }] });
 * const model = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'test', baseURL: server.url });
 * await server.close();
 * ```
 */
export interface OpenAITestServer {
  /** Base URL for clients, e.g. `http://127.0.0.1:54321/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order (chat completions and any other path). */
  readonly requests: readonly RecordedRequest[];
  /**
   * Number of open sockets that carried a request (0 when nothing leaks). A connection a client's
   * pool opened ahead of time and never used is not counted (fetch may open one after an abort
   * and close it by itself a few seconds later); pass `{ includeUnused: true }` to count it.
   */
  openConnections(options?: { readonly includeUnused?: boolean }): number;
  /** Resolves once at most `count` connections (as counted by `openConnections()`) are open (default 0); rejects after `timeoutMs` (default 2000). */
  waitForConnections(count?: number, timeoutMs?: number): Promise<void>;
  /** Appends turns to the script. */
  enqueue(...turns: ServerTurn[]): void;
  /** Turns of the script not consumed yet. */
  remainingTurns(): number;
  /** Closes the server and every connection, including stalled streams. */
  close(): Promise<void>;
}

/**
 * Starts a real `node:http` server on `127.0.0.1` (random port) speaking the OpenAI Chat
 * Completions protocol (and `POST /v1/embeddings` with {@link testEmbedding} vectors, and
 * `POST /v1/audio/speech` with a {@link testSpeechWav} file, and `POST /v1/moderations` flagging
 * {@link TEST_MODERATION_TERMS}): `POST /v1/chat/completions`, streaming (SSE `chat.completion.chunk`s,
 * tool-call arguments split over several chunks, a usage chunk with empty `choices` when the
 * request asks `stream_options.include_usage`, then `data: [DONE]`) and non-streaming (one
 * `chat.completion`). Turns come from a script (in order; a clear 500 when it runs out) or a
 * handler; every request is recorded; each turn may inject a {@link ServerFault}. Node only.
 *
 * @example
 * ```ts
 * const server = await startOpenAITestServer({ script: [{ text: ['Hel', 'lo'] }, { fault: 'rate_limit', retryAfterSeconds: 2 }] });
 * const model = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'test', baseURL: server.url });
 * // ... run the agent ...
 * expect(server.requests[0]!.body.stream).toBe(true);
 * await server.close();
 * expect(server.openConnections()).toBe(0);
 * ```
 */
export async function startOpenAITestServer(options: OpenAITestServerOptions = {}): Promise<OpenAITestServer> {
  const turns = new ScriptedTurns(options.script ?? [], options.handler);
  let chatIndex = 0;
  const requests: MutableRecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  /** Responses the server cut off on purpose (a fault), not the client. */
  const dropped = new WeakSet<ServerResponse>();
  let closing: Promise<void> | undefined;

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  // Node announces `Keep-Alive: timeout=1`, which tells fetch (undici) not to reuse the socket:
  // each request gets its own connection, closed after the response, so openConnections()
  // counts live requests. (A `Connection: close` header would do the same, but then undici
  // takes a connection cut mid-stream for the end of the body instead of an error.)
  if (!options.keepAlive) server.keepAliveTimeout = 1000;
  const connections = new ConnectionTracker(server);

  const later = (fn: () => void, delay: number): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, delay);
    timers.add(t);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    connections.markUsed(req.socket);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const record: MutableRecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      body: {},
      headers: req.headers,
      receivedAt: Date.now(),
      completed: false,
      clientClosed: false,
    };
    requests.push(record);
    res.once('close', () => {
      if (!res.writableFinished && !closing && !dropped.has(res)) record.clientClosed = true;
    });

    let raw: string;
    try {
      raw = await readBody(req);
    } catch {
      return; // the client went away while sending
    }
    if (raw) {
      try {
        record.body = JSON.parse(raw) as RecordedBody;
      } catch (e) {
        return sendError(
          res,
          record,
          400,
          `Request body is not valid JSON: ${(e as Error).message}`,
          'invalid_request_error',
          'invalid_json',
        );
      }
    }

    if (record.method === 'GET' && /\/models\/?$/.test(record.path)) {
      const model = options.model ?? 'test-model';
      return sendJson(res, record, 200, {
        object: 'list',
        data: [{ id: model, object: 'model', created: 0, owned_by: 'rxscope-test' }],
      });
    }
    const done = () => {
      record.completed = true;
    };
    if (record.method === 'POST' && /\/embeddings\/?$/.test(record.path)) {
      return sendRouteResponse(res, embeddingsResponse(record.body, options.model ?? 'text-embedding-test'), done);
    }
    if (record.method === 'POST' && /\/moderations\/?$/.test(record.path))
      return sendRouteResponse(res, moderationResponse(record.body), done);
    if (record.method === 'POST' && /\/audio\/speech\/?$/.test(record.path))
      return sendRouteResponse(res, speechResponse(record.body), done);
    if (record.method !== 'POST' || !/\/chat\/completions\/?$/.test(record.path)) {
      return sendError(
        res,
        record,
        404,
        `OpenAI test server: no route for ${record.method} ${record.path} (it serves POST /v1/chat/completions, /v1/embeddings, /v1/moderations and /v1/audio/speech).`,
        'invalid_request_error',
        'not_found',
      );
    }
    if (!Array.isArray(record.body.messages)) {
      return sendError(
        res,
        record,
        400,
        "OpenAI test server: the request has no 'messages' array.",
        'invalid_request_error',
        'missing_messages',
      );
    }

    const index = chatIndex++;
    const next = await turns.next(record, index);
    if ('noTurn' in next)
      return sendError(res, record, 500, next.noTurn.message, 'test_server_error', next.noTurn.code);
    if (res.destroyed) return;
    respond(res, record, next.turn, index);
  };

  const respond = (res: ServerResponse, record: MutableRecordedRequest, scripted: ServerTurn, index: number): void => {
    const error = errorOfFault(scripted, typeof record.body.model === 'string' ? record.body.model : undefined);
    if (error) return sendError(res, record, error.status, error.message, error.type, error.code, error.headers);
    const body = record.body;
    let turn = scripted;
    if (turn.json !== undefined) {
      // A structured answer, only for a request that asked for one (as a real server would not guess).
      const format = typeof body.response_format === 'object' ? body.response_format.type : body.response_format;
      if (format !== 'json_schema' && format !== 'json_object') {
        const message =
          "OpenAI test server: the turn answers with structured output (json), but the request's response_format is " +
          `${format ?? 'missing'}; expected json_schema or json_object.`;
        return sendError(res, record, 400, message, 'invalid_request_error', 'response_format_expected');
      }
      const json = JSON.stringify(turn.json);
      const third = Math.ceil(json.length / 3);
      turn = {
        ...turn,
        text: [json.slice(0, third), json.slice(third, 2 * third), json.slice(2 * third)].filter(Boolean),
      };
    }
    const model = options.model ?? (typeof body.model === 'string' ? body.model : 'test-model');
    const response = buildResponse(turn, body, model, index);
    if (body.stream === true) stream(res, record, turn, response, body);
    else if (!sendFaultedCompletion(res, record, turn.fault, JSON.stringify(response.completion), dropped)) {
      sendJson(res, record, 200, response.completion);
    }
  };

  const stream = (
    res: ServerResponse,
    record: MutableRecordedRequest,
    turn: ServerTurn,
    r: BuiltResponse,
    body: RecordedBody,
  ): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const plan = streamPlan(turn.fault, sseLines(r, body.stream_options?.include_usage === true), r);
    const delay = turn.chunkDelayMs ?? options.chunkDelayMs ?? 0;
    let i = 0;
    const step = (): void => {
      while (i < plan.length) {
        if (res.destroyed) return;
        const item = plan[i++]!;
        if (item === STALL) return;
        if (plan[i] === DROP) {
          // Cut the connection once this chunk is on the wire.
          dropped.add(res);
          res.write(item, () => res.socket?.destroy());
          return;
        }
        res.write(item);
        if (delay > 0 && i < plan.length) return later(step, delay);
      }
      res.end(() => {
        record.completed = true;
      });
    };
    if (delay > 0) later(step, delay);
    else step();
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    openConnections: (opts = {}) => connections.count(opts.includeUnused),
    waitForConnections: (count = 0, timeoutMs = 2000) => connections.waitFor(count, timeoutMs),
    enqueue: (...more) => turns.enqueue(more),
    remainingTurns: () => turns.remaining(),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        let pending = 2;
        const done = () => {
          if (--pending === 0) resolve();
        };
        server.close(done);
        connections.destroyAll(done);
      })),
  };
}
