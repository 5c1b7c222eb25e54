// @rxscope/middleware-builtin/redis — the parts that run on Redis (ioredis, an optional peer
// dependency). A separate entry point, so that the root entry's type declarations never name
// ioredis: a project without it compiles the root entry with `skipLibCheck: false`.
export { RedisCostStore } from './redis-cost-store.js';
export type { RedisCostStoreOptions } from './redis-cost-store.js';
export type { CostStore } from '../cost-limit/cost-store.js';
