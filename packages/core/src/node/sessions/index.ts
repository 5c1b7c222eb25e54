export type { SessionEventBus, SessionEventsOptions } from './session-event-bus.js';
export { InMemorySessionEventBus } from './in-memory-session-event-bus.js';
export type { InMemorySessionEventBusOptions } from './in-memory-session-event-bus.js';
export { AgentSessions } from './agent-sessions.js';
export type { AgentSessionsOptions } from './agent-sessions.js';
export type { RecoveryReport } from './recover-sessions.js';
export { RedisSessionEventBus } from './redis-session-event-bus.js';
export type { RedisSessionEventBusOptions } from './redis-session-event-bus.js';
