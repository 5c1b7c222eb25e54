// The harness column of the fault matrix (docs/RELIABILITY.md): each fault of the shared table
// (packages/middleware-builtin/src/__tests__/fault-matrix/matrix.ts), through createHarnessAgent
// with the coding preset — bubblewrap sandbox, compaction, tool-result eviction, plan mode, the
// task list, workspace context, @path, inbox, background tools, subagents and skills — in a
// temporary workspace, with RetryMiddleware and TimeoutMiddleware as the user's middlewares.
// The tool that hangs is a real command here (`execute` running `sleep 31.4159`): when the
// timeout cuts it, no process of it may be left anywhere on the machine (bubblewrap's own child
// included, which is no child of this process). Same checks as the other columns (cell.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RetryMiddleware, TimeoutMiddleware } from '@rxscope/middleware-builtin';
import { BOUND_MS, FAULT_TOOLS, runCell } from '../../../middleware-builtin/src/__tests__/fault-matrix/cell.js';
import { FAULTS } from '../../../middleware-builtin/src/__tests__/fault-matrix/matrix.js';
import {
  PHASES,
  runUnsubscribeCell,
  unsubscribeBuiltIns,
} from '../../../middleware-builtin/src/__tests__/fault-matrix/unsubscribe-cell.js';
import { createHarnessAgent } from '../assembly/create-harness-agent.js';
import type { HarnessOptions } from '../assembly/harness-options.js';
import { presets } from '../assembly/presets.js';
import { tempDir } from './helpers.js';

const SLEEP = '31.4159';

/** Processes anywhere whose command line is `sleep 31.4159`. */
function sleepers(): string[] {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${SLEEP}\0`;
    } catch {
      return false; // gone meanwhile
    }
  });
}

describe('fault matrix: the harness (coding preset, bubblewrap) with the built-ins', () => {
  jest.setTimeout(BOUND_MS * 2.5);
  let dir: ReturnType<typeof tempDir> | undefined;
  afterEach(async () => {
    for (let i = 0; i < 100 && sleepers().length; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sleepers()).toEqual([]);
    dir?.cleanup();
    dir = undefined;
  });

  it.each(FAULTS.map((fault) => [fault.name, fault] as const))('%s — harness', (_name, fault) => {
    dir = tempDir('rxscope-fault-');
    const harness = (more: Partial<HarnessOptions>): HarnessOptions => ({
      ...presets.coding(),
      workspace: join(dir!.path, 'ws'),
      tools: [...FAULT_TOOLS],
      execute: { askPermission: false },
      ...more,
    });
    return runCell(fault, 'harness', {
      agent: ({ model, middlewares, store, sessionId }) =>
        createHarnessAgent(
          harness({
            model,
            middlewares: [
              new RetryMiddleware({ initialDelayMs: 20, maxDelayMs: 50, jitter: 0 }),
              new TimeoutMiddleware({ idleMs: 300, toolCallMs: 200 }),
              ...middlewares,
            ],
            ...(store && { store, sessionId }),
          }),
        ),
      resume: ({ model, state }) => createHarnessAgent(harness({ model, state })),
      // The hanging tool is a command that outlives the timeout by far.
      turns: (f) =>
        f.local === 'tool_hangs'
          ? [
              { toolCalls: [{ name: 'execute', input: { command: `sleep ${SLEEP}` }, id: 'call_h' }] },
              { text: 'recovered' },
            ]
          : (f.turns ?? []),
    });
  });
});

describe('unsubscribing at each phase of a reply: the harness with the built-ins', () => {
  jest.setTimeout(10_000);
  let dir: ReturnType<typeof tempDir> | undefined;
  afterEach(() => {
    dir?.cleanup();
    dir = undefined;
  });

  const cells = PHASES.filter((p) => p.configurations.includes('harness')).map((p) => [p.name, p] as const);
  it.each(cells)('%s — harness', (_name, phase) => {
    dir = tempDir('rxscope-unsubscribe-');
    const workspace = join(dir.path, 'ws');
    return runUnsubscribeCell(phase, {
      agent: ({ model, tools }) =>
        createHarnessAgent({ ...presets.coding(), model, workspace, tools, middlewares: unsubscribeBuiltIns() }),
      resume: ({ model, tools, state }) => createHarnessAgent({ ...presets.coding(), model, workspace, tools, state }),
    });
  });
});
