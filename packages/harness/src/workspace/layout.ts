import { existsSync, mkdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The folders and files of a harness workspace, relative to its root:
 *
 * | path | what it holds |
 * | --- | --- |
 * | `AGENTS.md` | instructions for the agent, injected into its system prompt |
 * | `MEMORY.md` | long-lived notes, injected (capped) into the system prompt |
 * | `memory/` | further memory files |
 * | `knowledge/` | reference documents, listed in the system prompt |
 * | `skills/<name>/SKILL.md` | skills the agent can load |
 * | `subagents/<name>.md` | subagent definitions |
 * | `plans/PLAN.md` | the plan written in plan mode |
 * | `large_tool_results/` | tool results too large for the context (see tool-result eviction) |
 * | `conversation_history/` | full histories saved before compaction |
 *
 * @example
 * ```ts
 * const planFile = join(root, WORKSPACE_LAYOUT.plan); // <root>/plans/PLAN.md
 * ```
 */
export const WORKSPACE_LAYOUT = {
  agents: 'AGENTS.md',
  memory: 'MEMORY.md',
  memoryDir: 'memory',
  knowledge: 'knowledge',
  skills: 'skills',
  subagents: 'subagents',
  plans: 'plans',
  plan: 'plans/PLAN.md',
  largeToolResults: 'large_tool_results',
  history: 'conversation_history',
} as const;

const FOLDERS = [
  WORKSPACE_LAYOUT.memoryDir,
  WORKSPACE_LAYOUT.knowledge,
  WORKSPACE_LAYOUT.skills,
  WORKSPACE_LAYOUT.subagents,
  WORKSPACE_LAYOUT.plans,
  WORKSPACE_LAYOUT.largeToolResults,
  WORKSPACE_LAYOUT.history,
];

/**
 * Creates the workspace folder and its layout where missing (existing files are never
 * touched) and returns the workspace's real path. Throws a clear error when the path exists
 * but is not a folder, or cannot be created.
 *
 * @example
 * ```ts
 * const root = ensureWorkspace('./ws'); // '/home/me/project/ws', with AGENTS.md, MEMORY.md, plans/, ...
 * ```
 */
export function ensureWorkspace(path: string): string {
  if (typeof path !== 'string' || path.trim() === '') {
    throw new TypeError('workspace must be a folder path (it is created with its layout when missing).');
  }
  if (path.includes('\0')) throw new TypeError('workspace path must not contain a NUL byte.');
  const absolute = resolve(path);
  if (existsSync(absolute) && !statSync(absolute).isDirectory())
    throw new Error(`The workspace ${absolute} exists but is not a folder.`);
  try {
    mkdirSync(absolute, { recursive: true });
  } catch (e) {
    throw new Error(`Cannot create the workspace folder ${absolute}: ${(e as Error).message}`, { cause: e });
  }
  const root = realpathSync(absolute);
  for (const folder of FOLDERS) mkdirSync(join(root, folder), { recursive: true });
  for (const file of [WORKSPACE_LAYOUT.agents, WORKSPACE_LAYOUT.memory]) {
    try {
      writeFileSync(join(root, file), '', { flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return root;
}
