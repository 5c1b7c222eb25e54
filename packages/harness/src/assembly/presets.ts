import type { HarnessOptions } from './harness-options.js';

/**
 * Ready-made harness configurations: plain `HarnessOptions` objects without a model or a
 * workspace, composed by spreading (later keys win).
 *
 * - `coding()`: all file tools, `execute` in a bubblewrap sandbox (asks before each command),
 *   compaction, tool-result eviction, plan mode, the task list, workspace context and `@path`.
 *   Without `bwrap` (macOS), `createHarnessAgent` refuses it: add `sandbox: 'local'`.
 * - `research()`: read-only file tools, no shell, compaction, eviction, the task list, workspace context
 *   and `@path`; no plan mode (nothing to change).
 * - `minimal()`: workspace context only.
 *
 * @example
 * ```ts
 * const agent = createHarnessAgent({ ...presets.coding(), ...presets.research(), model, workspace: './ws', todos: false });
 * ```
 */
export const presets = {
  coding: (): HarnessOptions => ({
    fileTools: true,
    sandbox: 'bubblewrap',
    compaction: {},
    toolResultEviction: {},
    planMode: true,
    todos: true,
    workspaceContext: true,
    atPathExpansion: true,
    sysPrompt:
      'You are a careful coding assistant working in a project workspace. Read before you edit, keep changes small, ' +
      'run the tests with execute after changing code, and keep your task list current.',
  }),
  research: (): HarnessOptions => ({
    fileTools: 'read-only',
    sandbox: 'none',
    compaction: {},
    toolResultEviction: {},
    planMode: false,
    todos: true,
    workspaceContext: true,
    atPathExpansion: true,
    sysPrompt:
      'You are a research assistant. Find and read the relevant files, cite the paths you rely on, and say what you could not find.',
  }),
  minimal: (): HarnessOptions => ({
    fileTools: false,
    sandbox: 'none',
    compaction: false,
    toolResultEviction: false,
    planMode: false,
    todos: false,
    workspaceContext: true,
    atPathExpansion: false,
    inbox: false,
    asyncTools: false,
    subagents: false,
    skills: false,
  }),
} as const;
