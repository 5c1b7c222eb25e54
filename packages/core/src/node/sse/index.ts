export { HttpError, httpStatusOf, sendHttpError } from './http-error.js';
export { readJsonBody } from './read-json-body.js';
export { requireJsonContentType } from './json-content-type.js';
export { streamAgentEvents } from './stream-agent-events.js';
export type { StreamAgentEventsOptions, StreamOutcome } from './stream-agent-events.js';
export { createAgentSseHandler } from './create-agent-sse-handler.js';
export type { AgentSseHandlerOptions, AgentSseRequest } from './create-agent-sse-handler.js';
