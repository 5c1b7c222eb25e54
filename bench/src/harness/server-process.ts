/** Child process of `startServerProcess`: runs the test server until the parent disconnects. */
import { Server } from 'node:http';
import { startOpenAITestServer, type RecordedRequest, type ServerTurn } from '@rxscope/core/testing/node';
import type { ServerProcessOptions } from './server.js';
import { installStreamGate, type StreamGate } from './stream-gate.js';

/**
 * Requests that drive the stream gate instead of asking for a completion (non-streamed; the
 * answer's text is the number of responses held).
 */
const GATE_MODELS = { close: 'gate:close', open: 'gate:open', held: 'gate:held' } as const;

/** A control request of the gate, answered with the number of responses held; undefined for any other request. */
function gateControl(gate: StreamGate | undefined, request: RecordedRequest): ServerTurn | undefined {
  const model = request.body.model;
  if (!gate || typeof model !== 'string' || !model.startsWith('gate:')) return undefined;
  if (model === GATE_MODELS.close) gate.close();
  else if (model === GATE_MODELS.open) gate.open();
  return { text: String(gate.held()) };
}

/** Sets the listen backlog of the HTTP server the test server creates in this process (Node's default is 511). */
function backlogOf(backlog: number): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const listen = Server.prototype.listen;
  Server.prototype.listen = function (this: Server, port: number, host: string, ...rest: unknown[]) {
    const callback = rest.find((a) => typeof a === 'function');
    return (listen as (...a: unknown[]) => Server).call(this, port, host, backlog, callback);
  } as typeof listen;
}

/** The turn of a request: by its model name, else after a tool result, else the default. */
function turnOf(options: ServerProcessOptions, request: RecordedRequest): ServerTurn {
  const model = request.body.model;
  const byModel = typeof model === 'string' ? options.byModel?.[model] : undefined;
  if (byModel) return byModel;
  const last = request.body.messages?.at(-1);
  if (options.afterToolTurn && last?.role === 'tool') return options.afterToolTurn;
  return options.turn;
}

/**
 * Sets the keep-alive timeout of the HTTP server the test server creates in this process (it has no
 * option for it): with thousands of pooled connections on a loaded machine, clients otherwise pick
 * a connection the server is closing at its default 5 s and get ECONNRESET.
 */
function keepAliveFor(ms: number): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const listen = Server.prototype.listen;
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
    this.keepAliveTimeout = ms;
    this.headersTimeout = Math.max(this.headersTimeout, ms + 1000);
    return (listen as (...a: unknown[]) => Server).apply(this, args);
  } as typeof listen;
}

/** `hold`: each request waits for the parent's next `release`, then they go out spread over `spreadMs`. */
function holding(spreadMs: number): { wait(): Promise<void>; release(): void } {
  const held: (() => void)[] = [];
  return {
    wait: () => new Promise<void>((resolve) => held.push(resolve)),
    release: () => {
      held.forEach((resolve, i) => setTimeout(resolve, (spreadMs * i) / held.length));
      held.length = 0;
    },
  };
}

process.once('message', (options: ServerProcessOptions) => {
  if (options.keepAliveTimeoutMs !== undefined) keepAliveFor(options.keepAliveTimeoutMs);
  if (options.backlog !== undefined) backlogOf(options.backlog);
  const hold = options.hold ? holding(options.hold.spreadMs) : undefined;
  const gate = options.gate ? installStreamGate(options.gate.after) : undefined;
  // The first line goes out `firstChunkDelayMs` after the request: the answer waits the difference,
  // then the server's `chunkDelayMs` before each line (the first included).
  const firstWait = Math.max(0, (options.firstChunkDelayMs ?? 0) - (options.chunkDelayMs ?? 0));
  void startOpenAITestServer({
    handler:
      hold || gate || firstWait
        ? async (request) => {
            const control = gateControl(gate, request);
            if (control) return control;
            if (hold) await hold.wait();
            if (firstWait) await new Promise((resolve) => setTimeout(resolve, firstWait));
            return turnOf(options, request);
          }
        : (request) => turnOf(options, request),
    chunkDelayMs: options.chunkDelayMs ?? 0,
    keepAlive: options.keepAlive ?? true,
  }).then((server) => {
    process.on('message', (msg: { type?: string }) => {
      if (msg.type === 'release') hold?.release();
      if (msg.type === 'connections')
        process.send!({
          type: 'connections',
          open: server.openConnections({ includeUnused: true }),
          requests: server.requests.length,
        });
    });
    process.once('disconnect', () => {
      void server.close().then(() => process.exit(0));
    });
    process.send!({ url: server.url });
  });
});
