import type { AgentEvent } from '../event/events.js';

/** One server-sent event, as {@link encodeServerSentEvent} writes it. */
export interface ServerSentEvent {
  /** The `id:` field: what a reconnecting client sends back as `Last-Event-ID`. */
  readonly id?: string;
  /** The `event:` field (the event type a client listens for). */
  readonly event?: string;
  /** The `data:` field; a multi-line string becomes several `data:` lines. */
  readonly data?: string;
  /** The `retry:` field: the reconnection delay the client should use, in ms. */
  readonly retry?: number;
}

/** Line breaks are field separators in SSE: a value that must stay on one line loses them. */
const oneLine = (value: string) => value.replace(/[\r\n\0]/g, '');

/**
 * Encodes one server-sent event (the `text/event-stream` format): `id:`, `event:`, `retry:`,
 * one `data:` line per line of `data`, then the blank line that ends the event.
 *
 * @example
 * ```ts
 * encodeServerSentEvent({ id: '7', event: 'greeting', data: 'hi' }); // 'id: 7\nevent: greeting\ndata: hi\n\n'
 * ```
 */
export function encodeServerSentEvent(message: ServerSentEvent): string {
  let frame = '';
  if (message.id !== undefined) frame += `id: ${oneLine(message.id)}\n`;
  if (message.event !== undefined) frame += `event: ${oneLine(message.event)}\n`;
  if (message.retry !== undefined) frame += `retry: ${Math.max(0, Math.floor(message.retry))}\n`;
  if (message.data !== undefined) for (const line of message.data.split(/\r\n|\r|\n/)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/**
 * An SSE comment (ignored by clients; keeps idle connections and proxies alive).
 *
 * @example
 * ```ts
 * res.write(encodeServerSentComment('heartbeat')); // ': heartbeat\n\n'
 * ```
 */
export function encodeServerSentComment(text: string): string {
  return `${text
    .split(/\r\n|\r|\n/)
    .map((line) => `: ${line}`)
    .join('\n')}\n\n`;
}

/**
 * Encodes an {@link AgentEvent} as one SSE message: `id:` the event id, `event:` its type,
 * `data:` the event as JSON (one line: JSON escapes line breaks). Pass `{ id: false }` for an
 * event a client must not resume from (a synthesised one that is in no replay log).
 *
 * @example
 * ```ts
 * res.write(encodeAgentEvent(event)); // 'id: evt_1\nevent: TEXT_BLOCK_DELTA\ndata: {"type":"TEXT_BLOCK_DELTA",...}\n\n'
 * ```
 */
export function encodeAgentEvent(event: AgentEvent, options: { readonly id?: boolean } = {}): string {
  return encodeServerSentEvent({
    ...(options.id === false ? {} : { id: event.id }),
    event: event.type,
    data: JSON.stringify(event),
  });
}
