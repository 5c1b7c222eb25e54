import {
  Agent,
  type AgentHandle,
  type ChatModel,
  type Middleware,
  type PermissionState,
  type Tool,
} from '@rxscope/core';
import { SUBAGENT_TOOL_NAMES } from './subagent-tools.js';
import type { SubagentDefinition } from '../subagent-definition.js';

/** What building a subagent needs besides its definition. */
export interface SubagentBuild {
  /** The agent that spawns it (its tools, model, permissions and name). */
  readonly parent: AgentHandle;
  /** Named models for the `model` front matter field. */
  readonly models: Readonly<Record<string, ChatModel>>;
  /** Middlewares every subagent gets (a sandbox lifecycle, eviction); one is left out when all its tools are. */
  readonly middlewares: readonly Middleware[];
  /** The subagent tools of the next level down, when it may spawn in turn. */
  readonly nested: Middleware | undefined;
  readonly maxIters: number;
  /** Permission settings instead of the parent's current ones (those it had when it spawned, from another process). */
  readonly permissions?: PermissionState;
}

/**
 * A fresh agent for one spawn: its own conversation (nothing of the parent's), the definition's
 * prompt, model and tools (taken from the parent's own tools and the given middlewares), and
 * the parent's permission settings. Throws an error that says what is wrong with the definition.
 */
export function buildSubagent(def: SubagentDefinition, build: SubagentBuild): Agent {
  const { parent } = build;
  if (def.name === parent.name) {
    throw new Error(
      `The subagent is named "${def.name}" like the agent spawning it; give it a name of its own (its events carry it).`,
    );
  }
  let model = parent.model;
  if (def.model !== undefined) {
    const named = build.models[def.model];
    if (!named) {
      const known = Object.keys(build.models);
      throw new Error(
        `${def.file ?? def.name}: unknown model "${def.model}"; ${known.length ? `known models: ${known.join(', ')}` : 'no named models are configured (the models option)'}.`,
      );
    }
    model = named;
  }
  // The parent's own tools; tools of the parent's middlewares need those middlewares, so they are not lent.
  const own = parent.ownTools.filter((t) => !SUBAGENT_TOOL_NAMES.includes(t.name));
  const offered = new Map<string, Tool | Middleware>();
  for (const t of own) offered.set(t.name, t);
  for (const m of build.middlewares) for (const t of m.tools?.() ?? []) offered.set(t.name, m);
  if (build.nested) for (const t of build.nested.tools?.() ?? []) offered.set(t.name, build.nested);
  const allowed = def.tools ? new Set(def.tools) : undefined;
  if (allowed) {
    const missing = [...allowed].filter((n) => !offered.has(n));
    if (missing.length) {
      throw new Error(
        `${def.file ?? def.name} lists ${missing.map((n) => `"${n}"`).join(', ')}, which ${missing.length > 1 ? 'are' : 'is'} not available to subagents here ` +
          `(available: ${[...offered.keys()].join(', ') || 'none'}).`,
      );
    }
  }
  const use = (name: string) => !allowed || allowed.has(name);
  const middlewares = [...build.middlewares, ...(build.nested ? [build.nested] : [])].filter((m) => {
    const names = (m.tools?.() ?? []).map((t) => t.name);
    return names.length === 0 ? m !== build.nested : names.some(use);
  });
  return new Agent({
    name: def.name,
    sysPrompt: def.prompt,
    model,
    tools: own.filter((t) => use(t.name)),
    middlewares,
    maxIters: build.maxIters,
    permissions: build.permissions ?? parent.permissions.state,
  });
}
