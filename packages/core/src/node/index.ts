// @rxscope/core/node — Node-only parts (file system, Redis). Explicit named exports only.
export { FileSessionStore } from './file-session-store.js';
export type { FileSessionStoreOptions } from './file-session-store.js';
export { RedisSessionStore } from './redis-session-store.js';
export type { RedisSessionStoreOptions } from './redis-session-store.js';
export { SessionSaveError } from './session-save-error.js';
export type { SessionSaveErrorCode } from './session-save-error.js';

// graceful shutdown: running replies saved for the next process ----------------------------
export { shutdownAgents, terminationSignal } from './shutdown-agents.js';
export { nodeHandlerOf } from './fetch-handler.js';
export type { AgentsToShutDown, ShutdownAgentsOptions, ShutdownReport } from './shutdown-agents.js';

// transport: SSE for Node HTTP servers -----------------------------------------------------
export {
  createAgentSseHandler,
  HttpError,
  httpStatusOf,
  readJsonBody,
  requireJsonContentType,
  sendHttpError,
  streamAgentEvents,
} from './sse/index.js';
export type { AgentSseHandlerOptions, AgentSseRequest, StreamAgentEventsOptions, StreamOutcome } from './sse/index.js';

// sessions: detached replies and replay logs ------------------------------------------------
export {
  AgentSessions,
  InMemorySessionEventBus,
  InMemorySessionScheduler,
  InvalidScheduleError,
  RedisSessionEventBus,
} from './sessions/index.js';
export type {
  AgentSessionInfo,
  AgentSessionsOptions,
  RecoveryReport,
  InMemorySessionEventBusOptions,
  RedisSessionEventBusOptions,
  SessionForkOptions,
  SessionSchedule,
  SessionScheduleOptions,
  SessionScheduler,
  WakeResult,
  SessionEventBus,
  SessionEventsOptions,
  SessionUserOptions,
} from './sessions/index.js';

// Redis: pub/sub shared by the Redis-backed parts ---------------------------------------------
export { compareStreamIds, RedisChannels } from './redis/redis-channels.js';
export type { RedisChannelListener, RedisChannelSubscription } from './redis/redis-channels.js';
export type { RedisClient, RedisSubscriberClient } from './redis/redis-client.js';
