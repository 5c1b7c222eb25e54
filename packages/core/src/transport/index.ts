// Browser-safe transport: SSE encoding, the fetch-based event stream client.
export { encodeAgentEvent, encodeServerSentComment, encodeServerSentEvent } from './sse-encode.js';
export type { ServerSentEvent } from './sse-encode.js';
export { toServerSentEvents } from './to-server-sent-events.js';
export type { ServerSentEventsOptions } from './to-server-sent-events.js';
export { fromAgentEventStream } from './from-agent-event-stream.js';
export type { AgentEventStreamOptions } from './from-agent-event-stream.js';
export { AgentStreamError } from './agent-stream-error.js';
export type { AgentStreamErrorKind } from './agent-stream-error.js';
export { REPLAY_GAP } from './replay-gap.js';
export { toEventStreamResponse } from './to-event-stream-response.js';
export type { EventStreamResponseOptions } from './to-event-stream-response.js';
