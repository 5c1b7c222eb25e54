import { endWith, map, type Observable } from 'rxjs';
import type { AgentEvent } from '../../event/events.js';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';
import { toErrorInfo } from '../../model/model-error.js';
import { framesResponse } from '../frames-response.js';
import { encodeServerSentEvent } from '../sse-encode.js';
import { withSseHeartbeats } from '../to-server-sent-events.js';
import { toUIMessageStream } from './to-ui-message-stream.js';

/** Options of {@link toUIMessageStreamResponse}. */
export interface UIMessageStreamResponseOptions {
  /** Status of the response. Default 200. */
  readonly status?: number;
  /** Headers added to those of the protocol (`x-vercel-ai-ui-message-stream: v1`, SSE). */
  readonly headers?: HeadersInit;
  /** A comment frame after this many ms without a chunk. `0` disables. Default 15,000. */
  readonly heartbeatMs?: number;
}

const OPTION_KEYS = optionKeys<UIMessageStreamResponseOptions>({ status: true, headers: true, heartbeatMs: true });

/**
 * A Web `Response` streaming a reply as the AI SDK's UI message stream (`ai` 6 protocol: SSE
 * `data:` chunks of {@link toUIMessageStream}, ending with `[DONE]`), what `useChat` reads. A
 * client that goes away cancels the stream, which cancels the reply. For Next.js route handlers,
 * Hono and any fetch-style server.
 *
 * @example
 * ```ts
 * // app/api/chat/route.ts
 * export async function POST(req: Request) {
 *   return toUIMessageStreamResponse(agent.reply('Hi'));
 * }
 * ```
 */
export function toUIMessageStreamResponse(
  events$: Observable<AgentEvent>,
  options: UIMessageStreamResponseOptions = {},
): Response {
  checkOptionKeys('toUIMessageStreamResponse', options, OPTION_KEYS);
  const frames$ = withSseHeartbeats(
    events$.pipe(
      toUIMessageStream(),
      map((chunk) => encodeServerSentEvent({ data: JSON.stringify(chunk) })),
      endWith(encodeServerSentEvent({ data: '[DONE]' })),
    ),
    { heartbeatMs: options.heartbeatMs ?? 15_000 },
  );
  const headers = new Headers(options.headers);
  headers.set('x-vercel-ai-ui-message-stream', 'v1');
  const failed = (error: unknown) => [
    encodeServerSentEvent({ data: JSON.stringify({ type: 'error', errorText: toErrorInfo(error).message }) }),
    encodeServerSentEvent({ data: '[DONE]' }),
  ];
  return framesResponse(frames$, { status: options.status ?? 200, headers }, failed);
}
