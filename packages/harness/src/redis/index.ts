// @rxscope/harness/redis — the harness parts that run on Redis (ioredis, an optional peer
// dependency). A separate entry point, so that the main entry's type declarations never name
// ioredis: a project without it compiles the main entry with `skipLibCheck: false`.
export { RedisMessageBus } from './redis-message-bus.js';
export type { RedisMessageBusOptions } from './redis-message-bus.js';
export { RedisLease } from './redis-lease.js';
export type { RedisLeaseOptions } from './redis-lease.js';
export { RedisSandboxLease } from './redis-sandbox-lease.js';
export type { RedisSandboxLeaseOptions } from './redis-sandbox-lease.js';
