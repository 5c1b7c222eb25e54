import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DevtoolsRecorder } from '../recorder/devtools-recorder.js';

/** Who is talking: the handler's id (new on every start) and when it started. */
export interface ServerIdentity {
  readonly serverId: string;
  readonly startedAt: number;
}

/**
 * Serves the live feed as SSE: `hello` first (a new `serverId` after a reconnect means the
 * server restarted), then `summary` and `event` messages as the recorder announces them, and a
 * heartbeat comment every `heartbeatMs`. A client that stops reading is dropped once
 * `maxQueuedBytes` wait for it (it reconnects and reloads).
 */
export function streamFeed(
  req: IncomingMessage,
  res: ServerResponse,
  recorder: DevtoolsRecorder,
  server: ServerIdentity,
  limits: { readonly heartbeatMs: number; readonly maxQueuedBytes: number },
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders?.();
  let subscription: { unsubscribe(): void } | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const close = () => {
    clearInterval(heartbeat);
    subscription?.unsubscribe();
  };
  const send = (event: string, data: unknown) => {
    if (res.writableLength > limits.maxQueuedBytes) {
      close();
      res.destroy();
      return;
    }
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  send('hello', server);
  subscription = recorder.feed().subscribe((item) => {
    if (item.kind === 'summary') send('summary', item.summary);
    else send('event', item.event);
  });
  heartbeat = setInterval(() => res.write(': heartbeat\n\n'), limits.heartbeatMs);
  heartbeat.unref?.();
  req.on('close', close);
  res.on('close', close);
}
