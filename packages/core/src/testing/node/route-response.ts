/// <reference types="node" />
import type { ServerResponse } from 'node:http';

/** A whole (non-streamed) response of one of the test server's routes. */
export interface TestServerResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}

/** Writes `response` and calls `done` once it is on the wire. */
export function sendRouteResponse(res: ServerResponse, response: TestServerResponse, done: () => void): void {
  if (res.destroyed) return;
  const length = typeof response.body === 'string' ? Buffer.byteLength(response.body) : response.body.byteLength;
  res.writeHead(response.status, { ...response.headers, 'content-length': length });
  res.end(response.body, done);
}
