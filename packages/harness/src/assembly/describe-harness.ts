import type { Agent } from '@rxscope/core';
import type { AssembledPart, HarnessPart } from '../harness-part.js';

/** What `describeHarness` returns: the workspace and the parts in chain order. */
export interface HarnessDescription {
  readonly workspace: string;
  readonly sandbox: string;
  /** The user's middlewares (outermost), by key. */
  readonly userMiddlewares: readonly string[];
  /** The harness parts, outermost first; parts that are off are listed where they would be. */
  readonly parts: readonly HarnessPart[];
}

const described = new WeakMap<Agent, HarnessDescription>();
const HOOKS = ['onAgent', 'onReasoning', 'onModelCall', 'onActing', 'onSystemPrompt'] as const;

/** Notes what was assembled for `agent`, for {@link describeHarness}. */
export function recordHarness(
  agent: Agent,
  what: Omit<HarnessDescription, 'parts'> & { readonly parts: readonly AssembledPart[] },
): void {
  described.set(agent, {
    ...what,
    parts: what.parts.map(({ part, middleware, tools }) => ({
      ...part,
      hooks: middleware ? HOOKS.filter((h) => typeof middleware[h] === 'function') : [],
      tools: (middleware?.tools?.() ?? tools ?? []).map((t) => t.name),
    })),
  });
}

/**
 * What `createHarnessAgent` assembled for `agent`: the workspace, the sandbox, the user's
 * middlewares and the harness parts in chain order (outermost first), each with why it is on
 * or off, its hooks and its tools. Throws for an agent not built by `createHarnessAgent`.
 *
 * @example
 * ```ts
 * for (const p of describeHarness(agent).parts) console.log(`${p.enabled ? 'on ' : 'off'} ${p.name}: ${p.reason}`);
 * ```
 */
export function describeHarness(agent: Agent): HarnessDescription {
  const description = described.get(agent);
  if (!description)
    throw new TypeError(
      `Agent "${agent?.name}" was not built by createHarnessAgent; describeHarness knows only those.`,
    );
  return description;
}
