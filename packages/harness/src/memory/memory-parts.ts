import type { HarnessMemoryOptions } from './harness-memory-options.js';
import { type AssembledPart, type HarnessPartDefinition, objectOf, offPart, onPart } from '../harness-part.js';
import { MemoryFlushMiddleware } from './memory-flush/index.js';
import { MemoryMaintenanceMiddleware } from './memory-maintenance/index.js';
import { memoryGetTool } from './tools/memory-get.js';
import { memorySaveTool } from './tools/memory-save.js';
import { memorySearchTool } from './tools/memory-search.js';
import { optionKeys } from '@rxscope/core';
import { refuseUnknownOptions } from '../options/index.js';

/** The options the memory parts read. */
export interface MemoryPartOptions {
  readonly memory?: boolean | HarnessMemoryOptions;
}

// Every key of `memory: {...}`, typed against HarnessMemoryOptions (a new one must be listed).
const MEMORY_KEYS = optionKeys<HarnessMemoryOptions>({
  flush: true,
  maintenance: true,
  tools: true,
  bus: true,
  onError: true,
  lease: true,
});

const FLUSH = 'MemoryFlushMiddleware';
const MAINTENANCE = 'MemoryMaintenanceMiddleware';
const TOOLS = 'memory tools';

/** The memory parts of a harness, in chain order: flush, maintenance, tools. Off by default. */
export const memoryParts: HarnessPartDefinition<MemoryPartOptions> = {
  build(options, env) {
    if (!options.memory) {
      return [FLUSH, MAINTENANCE, TOOLS].map((name) => offPart(name, 'memory', 'memory is not on'));
    }
    const o: HarnessMemoryOptions = objectOf(options.memory);
    refuseUnknownOptions('createHarnessAgent memory', o, MEMORY_KEYS);
    const fileSystem = env.fileSystem;
    const report = {
      ...(o.bus ? { bus: o.bus } : {}),
      ...(o.onError ? { onError: o.onError } : {}),
      ...(o.lease ? { lease: o.lease } : {}),
    };
    const flush: AssembledPart =
      o.flush === false
        ? offPart(FLUSH, 'memory', 'memory.flush: false')
        : onPart(
            FLUSH,
            'memory.flush',
            'after each completed reply, durable facts go to memory/YYYY-MM-DD.md (detached)',
            {
              middleware: new MemoryFlushMiddleware({ ...objectOf(o.flush), ...report, fileSystem }),
            },
          );
    let maintenance = offPart(MAINTENANCE, 'memory', 'memory.maintenance: false');
    if (o.maintenance !== false) {
      const m = objectOf(o.maintenance);
      const every = m.intervalMs !== undefined ? `every ${m.intervalMs.toLocaleString('en-US')} ms` : 'a day';
      maintenance = onPart(
        MAINTENANCE,
        'memory.maintenance',
        `at most once ${every}, older ledgers folded into MEMORY.md and archived (detached)`,
        { middleware: new MemoryMaintenanceMiddleware({ ...m, ...report, fileSystem }) },
      );
    }
    const tools =
      o.tools === false
        ? offPart(TOOLS, 'memory', 'memory.tools: false')
        : onPart(TOOLS, 'memory.tools', 'memory_search, memory_get and memory_save over MEMORY.md and memory/', {
            tools: [memorySearchTool(fileSystem), memoryGetTool(fileSystem), memorySaveTool(fileSystem)],
          });
    return [flush, maintenance, tools];
  },
};
