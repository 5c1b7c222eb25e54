/// <reference types="node" />
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { embeddingsResponse } from './embeddings-route.js';
import { sendRouteResponse } from './route-response.js';
import { speechResponse } from './speech-route.js';

/**
 * A fault the {@link startOpenAITestServer} can inject into one turn.
 *
 * @example
 * ```ts
 * const server = await startOpenAITestServer({ script: [{ fault: 'drop_mid_stream', text: ['a', 'b', 'c'] }] });
 * ```
 */
export type ServerFault =
  /** HTTP 429 with a `Retry-After` header (`retryAfterSeconds`, default 1) and an OpenAI error body. */
  | 'rate_limit'
  /** HTTP 500 with an OpenAI error body. */
  | 'server_error'
  /** HTTP 401 with an OpenAI `invalid_api_key` error body. */
  | 'unauthorized'
  /** Streams the first chunks, then destroys the connection (non-streaming: half a body). */
  | 'drop_mid_stream'
  /** Sends an SSE `data:` line that is not JSON (non-streaming: a body that is not JSON). */
  | 'malformed_sse'
  /** Tool-call arguments that are not valid JSON (the turn's calls, or one call of the first tool). */
  | 'malformed_tool_json'
  /** A tool call naming a tool the request did not declare. */
  | 'unknown_tool'
  /** A response whose `choices` array is empty. */
  | 'empty_choices'
  /** Sends the first chunk of content, then nothing until the client aborts or the server closes (non-streaming: headers only). */
  | 'stall';

/**
 * One tool call the server should make the "model" request.
 *
 * @example
 * ```ts
 * const call: ServerToolCall = { name: 'get_weather', arguments: { city: 'Paris' }, id: 'call_1' };
 * ```
 */
export interface ServerToolCall {
  readonly name: string;
  /** Raw JSON text, or a value serialised to JSON. */
  readonly arguments: string | object;
  /** Default: a fresh `call_...` id. */
  readonly id?: string;
}

/**
 * One scripted response of the test server.
 *
 * @example
 * ```ts
 * const turn: ServerTurn = { reasoning: 'Think.', text: ['Hel', 'lo'], usage: { prompt_tokens: 12, completion_tokens: 3, cached_tokens: 8 } };
 * ```
 */
export interface ServerTurn {
  /** Answer text: one chunk, or the chunks to stream. */
  readonly text?: string | readonly string[];
  /** Reasoning, streamed before the text as `delta.reasoning_content`. */
  readonly reasoning?: string | readonly string[];
  /** Tool calls; streamed arguments are split over several chunks. */
  readonly toolCalls?: readonly ServerToolCall[];
  /** Reported usage. Default: rough counts from the request and the answer (no cache/reasoning details). */
  readonly usage?: {
    readonly prompt_tokens?: number;
    readonly completion_tokens?: number;
    readonly cached_tokens?: number;
    readonly reasoning_tokens?: number;
  };
  /** Default: `tool_calls` when the turn has tool calls, else `stop`. */
  readonly finishReason?: string;
  readonly fault?: ServerFault;
  /** `Retry-After` of a `rate_limit` (or `server_error`) fault, in seconds. */
  readonly retryAfterSeconds?: number;
  /** Delay before each streamed chunk of this turn (overrides the server's `chunkDelayMs`). */
  readonly chunkDelayMs?: number;
}

/**
 * A message of a recorded chat request, as sent on the wire.
 *
 * @example
 * ```ts
 * const last: RecordedWireMessage = server.requests[1]!.body.messages!.at(-1)!;
 * expect(last).toMatchObject({ role: 'tool', content: '5' });
 * ```
 */
export interface RecordedWireMessage {
  readonly role: string;
  readonly content?: string | readonly RecordedContentPart[] | null;
  readonly tool_calls?: readonly { readonly id: string; readonly type: string; readonly function: { readonly name: string; readonly arguments: string } }[];
  readonly tool_call_id?: string;
  readonly reasoning_content?: string;
  readonly [field: string]: unknown;
}

/**
 * A content part of a recorded message (`text`, `image_url`, `input_audio`, `file`...).
 *
 * @example
 * ```ts
 * const parts = server.requests[0]!.body.messages![1]!.content as RecordedContentPart[];
 * expect(parts[1]!.image_url!.url).toMatch(/^data:image\/png;base64,/);
 * ```
 */
export interface RecordedContentPart {
  readonly type: string;
  readonly text?: string;
  readonly image_url?: { readonly url: string; readonly detail?: string };
  readonly [field: string]: unknown;
}

/**
 * The JSON body of a recorded request: the chat completion fields, typed loosely.
 *
 * @example
 * ```ts
 * const body: RecordedBody = server.requests[0]!.body;
 * expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true }, tool_choice: 'auto' });
 * ```
 */
export interface RecordedBody {
  readonly model?: string;
  readonly messages?: readonly RecordedWireMessage[];
  readonly tools?: readonly {
    readonly type: string;
    readonly function: { readonly name: string; readonly description?: string; readonly parameters?: unknown; readonly strict?: boolean };
  }[];
  readonly tool_choice?: string | { readonly type: string; readonly function: { readonly name: string } };
  readonly stream?: boolean;
  readonly stream_options?: { readonly include_usage?: boolean };
  readonly [field: string]: unknown;
}

/**
 * A request the server received.
 *
 * @example
 * ```ts
 * const [first] = server.requests;
 * expect(first!.headers.authorization).toBe('Bearer sk-test');
 * expect(first!.clientClosed).toBe(false);
 * ```
 */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** The parsed JSON body (`{}` when there was none). */
  readonly body: RecordedBody;
  readonly headers: IncomingHttpHeaders;
  /** Milliseconds since the epoch. */
  readonly receivedAt: number;
  /** True once the whole response was written. */
  readonly completed: boolean;
  /** True when the client closed the connection before the response was complete. */
  readonly clientClosed: boolean;
}

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

interface MutableRecordedRequest {
  method: string;
  path: string;
  body: RecordedBody;
  headers: IncomingHttpHeaders;
  receivedAt: number;
  completed: boolean;
  clientClosed: boolean;
}

const UNKNOWN_TOOL = 'nonexistent_tool';

/**
 * Starts a real `node:http` server on `127.0.0.1` (random port) speaking the OpenAI Chat
 * Completions protocol (and `POST /v1/embeddings` with {@link testEmbedding} vectors, and
 * `POST /v1/audio/speech` with a {@link testSpeechWav} file): `POST /v1/chat/completions`, streaming (SSE `chat.completion.chunk`s,
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
  const script: ServerTurn[] = [...(options.script ?? [])];
  let scriptIndex = 0;
  let chatIndex = 0;
  const requests: MutableRecordedRequest[] = [];
  const sockets = new Set<Socket>();
  /** Sockets that carried at least one request. */
  const used = new WeakSet<Socket>();
  const usedCount = () => {
    let n = 0;
    for (const socket of sockets) if (used.has(socket)) n++;
    return n;
  };
  const timers = new Set<NodeJS.Timeout>();
  /** Responses the server cut off on purpose (a fault), not the client. */
  const dropped = new WeakSet<ServerResponse>();
  const connectionWaiters = new Set<() => void>();
  let closing: Promise<void> | undefined;

  const notifyConnections = () => {
    for (const check of [...connectionWaiters]) check();
  };

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  // Node announces `Keep-Alive: timeout=1`, which tells fetch (undici) not to reuse the socket:
  // each request gets its own connection, closed after the response, so openConnections()
  // counts live requests. (A `Connection: close` header would do the same, but then undici
  // takes a connection cut mid-stream for the end of the body instead of an error.)
  if (!options.keepAlive) server.keepAliveTimeout = 1000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      notifyConnections();
    });
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    used.add(req.socket);
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
        return sendError(res, record, 400, `Request body is not valid JSON: ${(e as Error).message}`, 'invalid_request_error', 'invalid_json');
      }
    }

    if (record.method === 'GET' && /\/models\/?$/.test(record.path)) {
      const model = options.model ?? 'test-model';
      return sendJson(res, record, 200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'rxscope-test' }] });
    }
    const done = () => {
      record.completed = true;
    };
    if (record.method === 'POST' && /\/embeddings\/?$/.test(record.path)) {
      return sendRouteResponse(res, embeddingsResponse(record.body, options.model ?? 'text-embedding-test'), done);
    }
    if (record.method === 'POST' && /\/audio\/speech\/?$/.test(record.path)) return sendRouteResponse(res, speechResponse(record.body), done);
    if (record.method !== 'POST' || !/\/chat\/completions\/?$/.test(record.path)) {
      return sendError(res, record, 404, `OpenAI test server: no route for ${record.method} ${record.path} (it serves POST /v1/chat/completions, /v1/embeddings and /v1/audio/speech).`, 'invalid_request_error', 'not_found');
    }
    if (!Array.isArray(record.body.messages)) {
      return sendError(res, record, 400, "OpenAI test server: the request has no 'messages' array.", 'invalid_request_error', 'missing_messages');
    }

    const index = chatIndex++;
    let turn: ServerTurn;
    try {
      if (options.handler) turn = await options.handler(record, index);
      else {
        const next = script[scriptIndex];
        if (!next) {
          return sendError(
            res,
            record,
            500,
            `OpenAI test server: the script has no turn for chat request #${index + 1} (it has ${script.length} turn${script.length === 1 ? '' : 's'}). Add a turn or use a handler.`,
            'test_server_error',
            'script_exhausted',
          );
        }
        scriptIndex++;
        turn = next;
      }
    } catch (e) {
      return sendError(res, record, 500, `OpenAI test server: the handler threw: ${(e as Error)?.message ?? String(e)}`, 'test_server_error', 'handler_error');
    }
    if (res.destroyed) return;
    respond(res, record, turn, index);
  };

  const respond = (res: ServerResponse, record: MutableRecordedRequest, turn: ServerTurn, index: number): void => {
    const body = record.body;
    switch (turn.fault) {
      case 'rate_limit':
        return sendError(res, record, 429, 'Rate limit reached for requests. Please try again later.', 'requests', 'rate_limit_exceeded', {
          'retry-after': String(turn.retryAfterSeconds ?? 1),
        });
      case 'server_error':
        return sendError(
          res,
          record,
          500,
          'The server had an error while processing your request. Sorry about that!',
          'server_error',
          null,
          turn.retryAfterSeconds !== undefined ? { 'retry-after': String(turn.retryAfterSeconds) } : {},
        );
      case 'unauthorized':
        return sendError(res, record, 401, 'Incorrect API key provided. You can find your API key in your account settings.', 'invalid_request_error', 'invalid_api_key');
      default:
        break;
    }
    const model = options.model ?? (typeof body.model === 'string' ? body.model : 'test-model');
    const response = buildResponse(turn, body, model, index);
    if (body.stream === true) stream(res, record, turn, response, body);
    else complete(res, record, turn, response);
  };

  const complete = (res: ServerResponse, record: MutableRecordedRequest, turn: ServerTurn, r: BuiltResponse): void => {
    const payload = JSON.stringify(r.completion);
    switch (turn.fault) {
      case 'drop_mid_stream':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
        dropped.add(res);
        res.write(payload.slice(0, Math.floor(payload.length / 2)), () => res.destroy());
        return;
      case 'malformed_sse':
        return sendRaw(res, record, 200, 'application/json', payload.slice(0, Math.floor(payload.length / 2)) + ' <<not json');
      case 'stall':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        return;
      default:
        return sendJson(res, record, 200, r.completion);
    }
  };

  const stream = (res: ServerResponse, record: MutableRecordedRequest, turn: ServerTurn, r: BuiltResponse, body: RecordedBody): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const includeUsage = body.stream_options?.include_usage === true;
    const lines: string[] = [];
    const usageField = includeUsage ? { usage: null } : {};
    for (const chunk of r.chunks) lines.push(`data: ${JSON.stringify({ ...chunk, ...usageField })}\n\n`);
    if (includeUsage) lines.push(`data: ${JSON.stringify({ ...r.usageChunk })}\n\n`);
    lines.push('data: [DONE]\n\n');

    let plan: string[]; // SSE lines, and the markers DROP and STALL
    switch (turn.fault) {
      case 'drop_mid_stream':
        plan = [...lines.slice(0, Math.max(1, Math.min(2, r.chunks.length - 1))), 'DROP'];
        break;
      case 'stall':
        // The role chunk and the first piece of content, then silence.
        plan = [...lines.slice(0, Math.max(1, Math.min(2, r.chunks.length - 1))), 'STALL'];
        break;
      case 'malformed_sse':
        plan = [lines[0]!, `data: {"id":"${r.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"oops"\n\n`, ...lines.slice(1)];
        break;
      default:
        plan = lines;
    }
    const delay = turn.chunkDelayMs ?? options.chunkDelayMs ?? 0;
    let i = 0;
    const step = (): void => {
      while (i < plan.length) {
        if (res.destroyed) return;
        const item = plan[i++]!;
        if (item === 'STALL') return;
        if (plan[i] === 'DROP') {
          // Cut the connection once this chunk is on the wire.
          dropped.add(res);
          res.write(item, () => res.socket?.destroy());
          return;
        }
        res.write(item);
        if (delay > 0 && i < plan.length) {
          const t = setTimeout(() => {
            timers.delete(t);
            step();
          }, delay);
          timers.add(t);
          return;
        }
      }
      res.end(() => {
        record.completed = true;
      });
    };
    if (delay > 0) {
      const t = setTimeout(() => {
        timers.delete(t);
        step();
      }, delay);
      timers.add(t);
    } else step();
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
    openConnections: (opts = {}) => (opts.includeUnused ? sockets.size : usedCount()),
    waitForConnections: (count = 0, timeoutMs = 2000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (usedCount() > count) return;
          connectionWaiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          connectionWaiters.delete(check);
          reject(new Error(`OpenAI test server: ${usedCount()} connection(s) still open after ${timeoutMs} ms (expected at most ${count}).`));
        }, timeoutMs);
        connectionWaiters.add(check);
        check();
      }),
    enqueue: (...turns) => {
      script.push(...turns);
    },
    remainingTurns: () => script.length - scriptIndex,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        let pending = 2;
        const done = () => {
          if (--pending === 0) resolve();
        };
        server.close(done);
        const allClosed = () => {
          if (sockets.size) return;
          connectionWaiters.delete(allClosed);
          done();
        };
        connectionWaiters.add(allClosed);
        for (const socket of sockets) socket.destroy();
        allClosed();
      })),
  };
}

// ---------------------------------------------------------------------------------------------
// Wire format

interface BuiltResponse {
  id: string;
  completion: Record<string, unknown>;
  chunks: Record<string, unknown>[];
  usageChunk: Record<string, unknown>;
}

const chunksOf = (v: string | readonly string[] | undefined): readonly string[] =>
  v === undefined ? [] : typeof v === 'string' ? [v] : v;

/** Splits a string into up to `parts` non-empty pieces (so arguments stream over several chunks). */
function split(text: string, parts = 3): string[] {
  if (text.length < 2) return text ? [text] : [''];
  const size = Math.ceil(text.length / Math.min(parts, text.length));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function toolCallsOf(turn: ServerTurn, body: RecordedBody, index: number): { id: string; name: string; arguments: string }[] {
  const declared = (body.tools ?? []).map((t) => t.function?.name).filter((n): n is string => typeof n === 'string');
  let calls = (turn.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${index}_${i}_${Math.random().toString(36).slice(2, 10)}`,
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
  }));
  if (turn.fault === 'malformed_tool_json') {
    if (!calls.length) calls = [{ id: `call_${index}_0_bad`, name: declared[0] ?? 'tool', arguments: '{"input": "x"}' }];
    // Cut the JSON short: an unterminated value that no parser accepts.
    calls = calls.map((c) => ({ ...c, arguments: `${c.arguments.replace(/\}\s*$/, '')}, "unterminated": "` }));
  } else if (turn.fault === 'unknown_tool') {
    let name = UNKNOWN_TOOL;
    while (declared.includes(name)) name += '_';
    if (!calls.length) calls = [{ id: `call_${index}_0_unknown`, name, arguments: '{}' }];
    calls = calls.map((c) => ({ ...c, name }));
  }
  return calls;
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function buildResponse(turn: ServerTurn, body: RecordedBody, model: string, index: number): BuiltResponse {
  const id = `chatcmpl-test${index}${Math.random().toString(36).slice(2, 8)}`;
  const created = Math.floor(Date.now() / 1000);
  const text = chunksOf(turn.text);
  const reasoning = chunksOf(turn.reasoning);
  const calls = toolCallsOf(turn, body, index);
  const finishReason = turn.finishReason ?? (calls.length ? 'tool_calls' : 'stop');
  const u = turn.usage ?? {};
  const promptTokens = u.prompt_tokens ?? estimateTokens(JSON.stringify(body.messages));
  const completionTokens =
    u.completion_tokens ?? estimateTokens(text.join('') + reasoning.join('') + calls.map((c) => c.name + c.arguments).join(''));
  const usage: Record<string, unknown> = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    ...(u.cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens: u.cached_tokens } } : {}),
    ...(u.reasoning_tokens !== undefined ? { completion_tokens_details: { reasoning_tokens: u.reasoning_tokens } } : {}),
  };
  const empty = turn.fault === 'empty_choices';
  const base = { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_rxscope_test' };
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });

  const chunks: Record<string, unknown>[] = [];
  if (empty) {
    chunks.push({ ...base, choices: [] });
  } else {
    chunks.push(choice({ role: 'assistant', content: '', refusal: null }));
    for (const r of reasoning) chunks.push(choice({ reasoning_content: r }));
    for (const t of text) chunks.push(choice({ content: t }));
    calls.forEach((c, i) => {
      chunks.push(choice({ tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
      for (const piece of split(c.arguments)) chunks.push(choice({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    });
    chunks.push(choice({}, finishReason));
  }

  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text.length ? text.join('') : null,
    refusal: null,
    ...(reasoning.length ? { reasoning_content: reasoning.join('') } : {}),
    ...(calls.length
      ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
      : {}),
  };
  const completion = {
    id,
    object: 'chat.completion',
    created,
    model,
    system_fingerprint: 'fp_rxscope_test',
    choices: empty ? [] : [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage,
  };
  return { id, completion, chunks, usageChunk: { ...base, choices: [], usage } };
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.once('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.once('error', reject);
    req.once('aborted', () => reject(new Error('aborted')));
  });
}

function sendRaw(res: ServerResponse, record: MutableRecordedRequest, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body, () => {
    record.completed = true;
  });
}

function sendJson(res: ServerResponse, record: MutableRecordedRequest, status: number, value: unknown, headers: Record<string, string> = {}): void {
  sendRaw(res, record, status, 'application/json', JSON.stringify(value), headers);
}

function sendError(
  res: ServerResponse,
  record: MutableRecordedRequest,
  status: number,
  message: string,
  type: string,
  code: string | null,
  headers: Record<string, string> = {},
): void {
  sendJson(res, record, status, { error: { message, type, param: null, code } }, headers);
}
