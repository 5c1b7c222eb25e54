// What the rest of the harness may use of memory/: its other files are its own.
export { type DetachedReport } from './detached-work.js';
export { MEMORY_ARCHIVE } from './ledger.js';
export { MemoryFlushMiddleware, type MemoryFlushOptions } from './memory-flush/index.js';
export {
  MAINTENANCE_FILE,
  MemoryMaintenanceMiddleware,
  type MemoryMaintenanceOptions,
} from './memory-maintenance/index.js';
export { type HarnessMemoryOptions } from './harness-memory-options.js';
export { memoryGetTool } from './tools/memory-get.js';
export { memorySaveTool } from './tools/memory-save.js';
export { memorySearchTool } from './tools/memory-search.js';
