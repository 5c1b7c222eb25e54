import type { AgentOptions } from '@rxscope/core';
import type { HarnessOptions } from './harness-options.js';

/** The options `createHarnessAgent` adds to the core's. */
export type HarnessOwnOption = Exclude<keyof HarnessOptions, keyof AgentOptions>;

// Every harness option, once: the compiler refuses a missing or an unknown key here.
const OWN: { readonly [K in HarnessOwnOption]-?: true } = {
  workspace: true,
  fileSystem: true,
  fileTools: true,
  readFile: true,
  editFile: true,
  grepFiles: true,
  sandbox: true,
  sandboxLease: true,
  workspaceSnapshot: true,
  execute: true,
  compaction: true,
  toolResultEviction: true,
  planMode: true,
  todos: true,
  workspaceContext: true,
  atPathExpansion: true,
  memory: true,
  bus: true,
  inbox: true,
  asyncTools: true,
  subagents: true,
  skills: true,
  tasks: true,
};

/** The harness's own option keys (what is left is the core's `AgentOptions`). */
export const HARNESS_OPTION_KEYS = Object.keys(OWN) as readonly HarnessOwnOption[];

/** `options` without the harness's own keys: what the core `Agent` is given. */
export function agentOptionsOf(options: HarnessOptions): Omit<HarnessOptions, HarnessOwnOption> {
  const rest: Record<string, unknown> = { ...options };
  for (const key of HARNESS_OPTION_KEYS) delete rest[key];
  return rest;
}
