import { built, partEnv, toolNamesOf } from '../__tests__/part-env.js';
import { MemoryFlushMiddleware } from './memory-flush/index.js';
import { MemoryMaintenanceMiddleware } from './memory-maintenance/index.js';
import { memoryParts } from './memory-parts.js';

describe('the memory parts', () => {
  const env = partEnv();
  afterAll(() => env.cleanup());
  const names = ['MemoryFlushMiddleware', 'MemoryMaintenanceMiddleware', 'memory tools'];

  it('are off by default, all three, each saying so', () => {
    const parts = built(memoryParts, {}, env);
    expect(parts.map((p) => p.part)).toEqual(
      names.map((name) => ({ name, option: 'memory', enabled: false, reason: 'memory is not on' })),
    );
  });

  it('memory: true gives flush, maintenance (daily) and the three tools, in chain order', () => {
    const [flush, maintenance, tools] = built(memoryParts, { memory: true }, env);
    expect(flush!.middleware).toBeInstanceOf(MemoryFlushMiddleware);
    expect(maintenance!.middleware).toBeInstanceOf(MemoryMaintenanceMiddleware);
    expect(maintenance!.part.reason).toBe(
      'at most once a day, older ledgers folded into MEMORY.md and archived (detached)',
    );
    expect(toolNamesOf(tools!)).toEqual(['memory_search', 'memory_get', 'memory_save']);
  });

  it('each piece turns off on its own, and the interval is said', () => {
    const parts = built(
      memoryParts,
      { memory: { flush: false, tools: false, maintenance: { intervalMs: 60_000 } } },
      env,
    );
    expect(parts.map((p) => [p.part.enabled, p.part.reason])).toEqual([
      [false, 'memory.flush: false'],
      [true, 'at most once every 60,000 ms, older ledgers folded into MEMORY.md and archived (detached)'],
      [false, 'memory.tools: false'],
    ]);
  });
});
