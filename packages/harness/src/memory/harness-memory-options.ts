import type { DetachedReport } from './detached-work.js';
import type { MemoryFlushOptions } from './memory-flush/index.js';
import type { MemoryMaintenanceOptions } from './memory-maintenance/index.js';

/**
 * The harness's memory (`memory: true` turns on all three parts). `bus` and `onError` receive
 * what the detached flush and maintenance report; with a `lease` (a `RedisLease`), one session
 * never runs two flushes, and one workspace two maintenance runs, at once across processes.
 *
 * @example
 * ```ts
 * const options: HarnessOptions = { model, workspace: './ws', memory: { maintenance: { intervalMs: 6 * 3600_000 }, bus: sessions.bus } };
 * ```
 */
export interface HarnessMemoryOptions extends DetachedReport {
  /** After each completed reply, durable facts go to `memory/YYYY-MM-DD.md`. Default true. */
  readonly flush?: boolean | Omit<MemoryFlushOptions, 'fileSystem' | 'bus' | 'onError' | 'lease'>;
  /** Throttled consolidation of older ledgers into `MEMORY.md`. Default true. */
  readonly maintenance?: boolean | Omit<MemoryMaintenanceOptions, 'fileSystem' | 'bus' | 'onError' | 'lease'>;
  /** `memory_search`, `memory_get`, `memory_save`. Default true. */
  readonly tools?: boolean;
}
