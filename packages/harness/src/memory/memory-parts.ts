import type { HarnessMemoryOptions } from '../harness-options.js';
import { MemoryFlushMiddleware } from '../middleware/memory-flush/index.js';
import { MemoryMaintenanceMiddleware } from '../middleware/memory-maintenance/index.js';
import { memoryGetTool } from '../tools/memory-get.js';
import { memorySaveTool } from '../tools/memory-save.js';
import { memorySearchTool } from '../tools/memory-search.js';
import type { WorkspaceFileSystem } from '../workspace/workspace-file-system.js';
import type { AssembledPart } from '../harness-part.js';

/** The memory parts of a harness, in chain order: flush, maintenance, tools. */
export function memoryParts(
  option: boolean | HarnessMemoryOptions | undefined,
  fs: WorkspaceFileSystem,
): AssembledPart[] {
  const off = (name: string, reason: string): AssembledPart => ({
    part: { name, option: 'memory', enabled: false, reason },
  });
  if (!option) {
    return [
      off('MemoryFlushMiddleware', 'memory is not on'),
      off('MemoryMaintenanceMiddleware', 'memory is not on'),
      off('memory tools', 'memory is not on'),
    ];
  }
  const o: HarnessMemoryOptions = option === true ? {} : option;
  const report = {
    ...(o.bus ? { bus: o.bus } : {}),
    ...(o.onError ? { onError: o.onError } : {}),
    ...(o.lease ? { lease: o.lease } : {}),
  };
  const parts: AssembledPart[] = [];
  if (o.flush === false) parts.push(off('MemoryFlushMiddleware', 'memory.flush: false'));
  else {
    parts.push({
      part: {
        name: 'MemoryFlushMiddleware',
        option: 'memory.flush',
        enabled: true,
        reason: 'after each completed reply, durable facts go to memory/YYYY-MM-DD.md (detached)',
      },
      middleware: new MemoryFlushMiddleware({
        ...(typeof o.flush === 'object' ? o.flush : {}),
        ...report,
        fileSystem: fs,
      }),
    });
  }
  if (o.maintenance === false) parts.push(off('MemoryMaintenanceMiddleware', 'memory.maintenance: false'));
  else {
    const m = new MemoryMaintenanceMiddleware({
      ...(typeof o.maintenance === 'object' ? o.maintenance : {}),
      ...report,
      fileSystem: fs,
    });
    const every =
      typeof o.maintenance === 'object' && o.maintenance.intervalMs !== undefined
        ? `every ${o.maintenance.intervalMs.toLocaleString('en-US')} ms`
        : 'a day';
    parts.push({
      part: {
        name: 'MemoryMaintenanceMiddleware',
        option: 'memory.maintenance',
        enabled: true,
        reason: `at most once ${every}, older ledgers folded into MEMORY.md and archived (detached)`,
      },
      middleware: m,
    });
  }
  parts.push(
    o.tools === false
      ? off('memory tools', 'memory.tools: false')
      : {
          part: {
            name: 'memory tools',
            option: 'memory.tools',
            enabled: true,
            reason: 'memory_search, memory_get and memory_save over MEMORY.md and memory/',
          },
          tools: [memorySearchTool(fs), memoryGetTool(fs), memorySaveTool(fs)],
        },
  );
  return parts;
}
