// Browser-safe transport: SSE encoding, the fetch-based event stream client and its operators.
export { encodeAgentEvent, encodeServerSentComment, encodeServerSentEvent } from './sse-encode.js';
export type { ServerSentEvent } from './sse-encode.js';
export { toServerSentEvents } from './to-server-sent-events.js';
export type { ServerSentEventsOptions } from './to-server-sent-events.js';
export { fromAgentEventStream } from './from-agent-event-stream.js';
export type { AgentEventStreamOptions } from './from-agent-event-stream.js';
export { AgentStreamError } from './agent-stream-error.js';
export type { AgentStreamErrorKind } from './agent-stream-error.js';
export { textOf } from './text-of.js';
export type { TextOfOptions } from './text-of.js';
export { pendingConfirmations } from './pending-confirmations.js';
export { REPLAY_GAP } from './replay-gap.js';
