/// <reference types="node" />
// The faults a scripted turn can inject: error statuses, broken streams and broken tool calls.
import type { ServerResponse } from 'node:http';
import { sendRaw } from './http-exchange.js';
import type { MutableRecordedRequest } from './recording.js';
import type { BuiltResponse, ServerFault, ServerTurn, WireToolCall } from './server-types.js';

export type { ServerFault, WireToolCall } from './server-types.js';

/** An error response a fault answers with instead of a completion. */
export interface FaultError {
  readonly status: number;
  readonly message: string;
  readonly type: string;
  readonly code: string | null;
  readonly headers: Record<string, string>;
}

/** The error response of a turn whose fault is an HTTP error (`rate_limit`, `server_error`, `unauthorized`, `model_not_found`), for a request naming `model`. */
export function errorOfFault(turn: ServerTurn, model = 'the-model'): FaultError | undefined {
  switch (turn.fault) {
    case 'model_not_found':
      return {
        status: 404,
        message: `The model \`${model}\` does not exist or you do not have access to it.`,
        type: 'invalid_request_error',
        code: 'model_not_found',
        headers: {},
      };
    case 'rate_limit':
      return {
        status: 429,
        message: 'Rate limit reached for requests. Please try again later.',
        type: 'requests',
        code: 'rate_limit_exceeded',
        headers: { 'retry-after': String(turn.retryAfterSeconds ?? 1) },
      };
    case 'server_error':
      return {
        status: 500,
        message: 'The server had an error while processing your request. Sorry about that!',
        type: 'server_error',
        code: null,
        headers: turn.retryAfterSeconds !== undefined ? { 'retry-after': String(turn.retryAfterSeconds) } : {},
      };
    case 'unauthorized':
      return {
        status: 401,
        message: 'Incorrect API key provided. You can find your API key in your account settings.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        headers: {},
      };
    default:
      return undefined;
  }
}

/** The name an `unknown_tool` fault calls (made unique against the declared tools). */
const UNKNOWN_TOOL = 'nonexistent_tool';

/**
 * The turn's tool calls after a `malformed_tool_json` or `unknown_tool` fault (a call is made up
 * when the turn has none); other faults leave them as they are.
 */
export function withToolCallFault(
  fault: ServerFault | undefined,
  calls: WireToolCall[],
  declared: readonly string[],
  index: number,
): WireToolCall[] {
  if (fault === 'malformed_tool_json') {
    if (!calls.length)
      calls = [{ id: `call_${index}_0_bad`, name: declared[0] ?? 'tool', arguments: '{"input": "x"}' }];
    // Cut the JSON short: an unterminated value that no parser accepts.
    return calls.map((c) => ({ ...c, arguments: `${c.arguments.replace(/\}\s*$/, '')}, "unterminated": "` }));
  }
  if (fault === 'unknown_tool') {
    let name = UNKNOWN_TOOL;
    while (declared.includes(name)) name += '_';
    if (!calls.length) calls = [{ id: `call_${index}_0_unknown`, name, arguments: '{}' }];
    return calls.map((c) => ({ ...c, name }));
  }
  return calls;
}

/** Markers in a stream plan: cut the connection after the previous line / send nothing more. */
export const DROP = 'DROP';
export const STALL = 'STALL';

/** The SSE lines to send for a streamed turn, with the fault's {@link DROP} or {@link STALL} marker. */
export function streamPlan(fault: ServerFault | undefined, lines: readonly string[], r: BuiltResponse): string[] {
  switch (fault) {
    case 'drop_mid_stream':
      return [...lines.slice(0, Math.max(1, Math.min(2, r.chunks.length - 1))), DROP];
    case 'stall':
      // The role chunk and the first piece of content, then silence.
      return [...lines.slice(0, Math.max(1, Math.min(2, r.chunks.length - 1))), STALL];
    case 'malformed_sse':
      return [
        lines[0]!,
        `data: {"id":"${r.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"oops"\n\n`,
        ...lines.slice(1),
      ];
    default:
      return [...lines];
  }
}

/**
 * Sends a non-streamed completion broken by the turn's fault. Returns false when the fault does
 * not break a non-streamed completion (the caller sends it whole).
 *
 * @param dropped responses the server cuts on purpose (not counted as closed by the client)
 */
export function sendFaultedCompletion(
  res: ServerResponse,
  record: MutableRecordedRequest,
  fault: ServerFault | undefined,
  payload: string,
  dropped: WeakSet<ServerResponse>,
): boolean {
  switch (fault) {
    case 'drop_mid_stream':
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      dropped.add(res);
      res.write(payload.slice(0, Math.floor(payload.length / 2)), () => res.destroy());
      return true;
    case 'malformed_sse':
      sendRaw(res, record, 200, 'application/json', payload.slice(0, Math.floor(payload.length / 2)) + ' <<not json');
      return true;
    case 'stall':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      return true;
    default:
      return false;
  }
}
