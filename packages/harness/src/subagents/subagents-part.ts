import { type HarnessPartDefinition, objectOf, offPart, onPart } from '../harness-part.js';
import { SubagentsMiddleware, type SubagentsOptions } from './subagents-middleware/index.js';

/** The options the subagents part reads. */
export interface SubagentsPartOptions {
  readonly subagents?: boolean | Omit<SubagentsOptions, 'fileSystem' | 'tasks' | 'depth'>;
  readonly inbox?: unknown;
}

/**
 * Subagents: `agent_spawn` and the task tools. Subagents run with the lent middlewares (the
 * sandbox lifecycle, so they have `execute` in a sandbox of their own, the workspace context and
 * eviction); background spawns need the inbox.
 */
export const subagentsPart: HarnessPartDefinition<SubagentsPartOptions> = {
  borrows: true,
  build(options, env) {
    const name = 'SubagentsMiddleware';
    const subagents = options.subagents ?? true;
    if (subagents === false) return offPart(name, 'subagents', 'subagents: false');
    const { taskQueue, ...o } = objectOf(subagents);
    const background = options.inbox !== false;
    const middleware = new SubagentsMiddleware({
      ...o,
      middlewares: [...env.lent, ...(o.middlewares ?? [])],
      fileSystem: env.fileSystem,
      ...(background ? { tasks: env.tasks, ...(taskQueue ? { taskQueue } : {}) } : {}),
    });
    const spawns = `subagents/<name>.md${o.generalPurpose === false ? '' : ' or a general-purpose subagent'}`;
    const backgroundSpawns = background
      ? `background spawns ${taskQueue ? 'go to the task queue and ' : ''}report through the inbox`
      : 'no background spawns (inbox: false)';
    const reason = `agent_spawn runs ${spawns} in a context of its own, nested at most ${middleware.maxDepth} deep; ${backgroundSpawns}`;
    return onPart(name, 'subagents', reason, { middleware });
  },
};
