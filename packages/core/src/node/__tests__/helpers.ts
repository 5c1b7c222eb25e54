// Shared by the Node transport tests: real servers on 127.0.0.1, raw SSE reading.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentEvent } from '../../event/events.js';

export interface Listening {
  readonly server: Server;
  readonly url: string;
  close(): Promise<void>;
}

/** Starts `handler` on a random loopback port. `close()` also drops open connections (streams). */
export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => unknown): Promise<Listening> {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One SSE frame as written on the wire. */
export interface RawFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly retry?: string;
  readonly comment?: string;
}

/** Splits a `text/event-stream` body into frames (strictly: `field: value` lines, blank-line separated). */
export function parseFrames(text: string): RawFrame[] {
  return text
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => {
      const frame: Record<string, string> = {};
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        const field = colon === 0 ? 'comment' : line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, '');
        frame[field] = frame[field] === undefined ? value : `${frame[field]}\n${value}`;
      }
      return frame;
    });
}

/** The agent events of a body (frames with data). */
export function eventsOf(text: string): AgentEvent[] {
  return parseFrames(text)
    .filter((f) => f.data !== undefined)
    .map((f) => JSON.parse(f.data!) as AgentEvent);
}

/** Polls `check` until it is true (every 10 ms) or fails after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
