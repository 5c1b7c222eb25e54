import { fork } from 'node:child_process';
import type { ServerTurn } from '@rxscope/core/testing/node';

/** rxscope's OpenAI-compatible test server, running in a child process. */
export interface ServerProcess {
  /** Base URL, `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  /** Sockets open on the server (clients' keep-alive connections included) and requests served so far. */
  connections(): Promise<{ open: number; requests: number }>;
  /** With `hold`: answers the requests held so far (spread over `hold.spreadMs`); later ones wait for the next release. */
  release(): void;
  close(): Promise<void>;
}

export interface ServerProcessOptions {
  /** The turn a chat completion request gets unless one of the rules below applies. */
  readonly turn: ServerTurn;
  /** The turn of a request whose last message is a tool result (the second call of a tool round trip). */
  readonly afterToolTurn?: ServerTurn;
  /** The turn of a request by its `model` field (checked first), e.g. several stream lengths on one server. */
  readonly byModel?: Readonly<Record<string, ServerTurn>>;
  /** Delay before each streamed chunk, ms. Default 0. */
  readonly chunkDelayMs?: number;
  /** Keep connections open between requests, as real clients' pools expect. Default true; false: every response closes its connection, so open sockets are requests in flight. */
  readonly keepAlive?: boolean;
  /** The server's keep-alive timeout, ms. Default: Node's (5 s). */
  readonly keepAliveTimeoutMs?: number;
  /**
   * Hold every request until the next `release()`; then answer the held ones spread evenly over
   * `spreadMs` (so that many replies started together stream at a steady rate, not in lockstep).
   */
  readonly hold?: { readonly spreadMs: number };
  /**
   * Time to the first streamed line, ms (the answer waits `firstChunkDelayMs − chunkDelayMs`, then
   * `chunkDelayMs` before each line), as a model's time to first token. Default: `chunkDelayMs`.
   */
  readonly firstChunkDelayMs?: number;
  /**
   * A stream gate (`stream-gate.ts`): while closed, a streamed response stops after the line that
   * contains `after` until the gate opens. Driven by non-streamed requests for the models
   * `gate:close`, `gate:open` and `gate:held`, each answered with the number of responses held.
   */
  readonly gate?: { readonly after: string };
  /** Listen backlog of the server (Node's default 511; the OS caps it at `net.core.somaxconn`). */
  readonly backlog?: number;
}

/**
 * Starts the test server in its own process (`server-process.ts`), so its CPU time and garbage
 * stay out of the measured process: what the benchmark measures is the client side plus the
 * loopback round trip, as against a real server. Connections are kept alive, as real clients do.
 */
export function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const child = fork(new URL('./server-process.js', import.meta.url), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [],
  });
  return new Promise<ServerProcess>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the test server process exited early (code ${code})`)));
    child.once('message', (msg: { url: string }) => {
      child.removeAllListeners('exit');
      resolve({
        url: msg.url,
        connections: () =>
          new Promise((done) => {
            const onMessage = (m: { type?: string; open: number; requests: number }) => {
              if (m.type !== 'connections') return;
              child.off('message', onMessage);
              done({ open: m.open, requests: m.requests });
            };
            child.on('message', onMessage);
            child.send({ type: 'connections' });
          }),
        release: () => child.send({ type: 'release' }),
        close: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.disconnect();
          }),
      });
    });
    child.send(options);
  });
}
