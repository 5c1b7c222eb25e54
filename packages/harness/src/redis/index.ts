// @rxscope/harness/redis — the harness parts that run on Redis (ioredis, an optional peer
// dependency). A separate entry point, so that the main entry's type declarations never name
// ioredis: a project without it compiles the main entry with `skipLibCheck: false`.
export { RedisMessageBus } from '../bus/redis-message-bus.js';
export type { RedisMessageBusOptions } from '../bus/redis-message-bus.js';
export { RedisLease } from '../coordination/redis-lease.js';
export type { RedisLeaseOptions } from '../coordination/redis-lease.js';
export { RedisSandboxLease } from '../sandbox/redis-sandbox-lease.js';
export type { RedisSandboxLeaseOptions } from '../sandbox/redis-sandbox-lease.js';
