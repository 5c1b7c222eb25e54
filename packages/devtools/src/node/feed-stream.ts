import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeServerSentComment, encodeServerSentEvent } from '@rxscope/core';
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
  // The first message: who is talking (nothing is queued yet).
  res.write(encodeServerSentEvent({ event: 'hello', data: JSON.stringify(server) }));
  const subscription = recorder.feed().subscribe({
    next: (item) => (item.kind === 'summary' ? send('summary', item.summary) : send('event', item.event)),
    error: () => res.end(),
  });
  const heartbeat = setInterval(() => res.write(encodeServerSentComment('heartbeat')), limits.heartbeatMs);
  heartbeat.unref?.();
  function close(): void {
    clearInterval(heartbeat);
    subscription.unsubscribe();
  }
  function send(event: string, data: unknown): void {
    if (res.writableLength > limits.maxQueuedBytes) {
      close();
      res.destroy();
      return;
    }
    res.write(encodeServerSentEvent({ event, data: JSON.stringify(data) }));
  }
  req.on('close', close);
  res.on('close', close);
}
