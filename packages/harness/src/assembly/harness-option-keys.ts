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

// The core's options a harness agent passes on; listed here too (the compiler holds this list to
// AgentOptions), so a typo is refused with the harness's and the core's options in one list.
const CORE: { readonly [K in Exclude<keyof HarnessOptions, HarnessOwnOption>]-?: true } = {
  name: true,
  sysPrompt: true,
  model: true,
  tools: true,
  middlewares: true,
  maxIters: true,
  toolChoice: true,
  resetToolChoice: true,
  modelOptions: true,
  maxConcurrentTools: true,
  sessionId: true,
  state: true,
  permissions: true,
  whilePending: true,
  store: true,
  onBackgroundError: true,
  checkpoints: true,
};

/** Every key `createHarnessAgent` takes: the harness's own, then the core's. */
export const ALL_HARNESS_AGENT_KEYS: readonly string[] = [...HARNESS_OPTION_KEYS, ...Object.keys(CORE)];

/** `options` without the harness's own keys: what the core `Agent` is given. */
export function agentOptionsOf(options: HarnessOptions): Omit<HarnessOptions, HarnessOwnOption> {
  const rest: Record<string, unknown> = { ...options };
  for (const key of HARNESS_OPTION_KEYS) delete rest[key];
  return rest;
}
