/// <reference types="node" />
// What the test server records: every request (its body as sent on the wire, whether it completed
// or the client left) and every connection (so tests can prove nothing leaks).
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { Socket } from 'node:net';

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
  readonly tool_calls?: readonly {
    readonly id: string;
    readonly type: string;
    readonly function: { readonly name: string; readonly arguments: string };
  }[];
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
    readonly function: {
      readonly name: string;
      readonly description?: string;
      readonly parameters?: unknown;
      readonly strict?: boolean;
    };
  }[];
  readonly tool_choice?: string | { readonly type: string; readonly function: { readonly name: string } };
  readonly stream?: boolean;
  readonly stream_options?: { readonly include_usage?: boolean };
  /**
   * Chat: structured output asked natively (`{type: 'json_schema', json_schema: {name, schema,
   * strict}}`). Speech: the audio format (`'mp3'`, `'wav'`...).
   */
  readonly response_format?:
    | string
    | {
        readonly type: string;
        readonly json_schema?: {
          readonly name: string;
          readonly schema?: Record<string, unknown>;
          readonly strict?: boolean | null;
        };
      };
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

/** A {@link RecordedRequest} while the server still fills it in. */
export interface MutableRecordedRequest {
  method: string;
  path: string;
  body: RecordedBody;
  headers: IncomingHttpHeaders;
  receivedAt: number;
  completed: boolean;
  clientClosed: boolean;
}

/** The open connections of one server, told apart by whether they carried a request. */
export class ConnectionTracker {
  private readonly sockets = new Set<Socket>();
  /** Sockets that carried at least one request. */
  private readonly used = new WeakSet<Socket>();
  private readonly waiters = new Set<() => void>();

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => {
        this.sockets.delete(socket);
        this.notify();
      });
    });
  }

  markUsed(socket: Socket): void {
    this.used.add(socket);
  }

  count(includeUnused = false): number {
    if (includeUnused) return this.sockets.size;
    let n = 0;
    for (const socket of this.sockets) if (this.used.has(socket)) n++;
    return n;
  }

  /** Resolves once at most `count` used connections are open; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.count() > count) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `OpenAI test server: ${this.count()} connection(s) still open after ${timeoutMs} ms (expected at most ${count}).`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** Destroys every connection; calls `done` once all are closed. */
  destroyAll(done: () => void): void {
    const allClosed = () => {
      if (this.sockets.size) return;
      this.waiters.delete(allClosed);
      done();
    };
    this.waiters.add(allClosed);
    for (const socket of this.sockets) socket.destroy();
    allClosed();
  }

  private notify(): void {
    for (const check of [...this.waiters]) check();
  }
}
