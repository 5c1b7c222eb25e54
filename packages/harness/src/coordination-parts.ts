import type { MessageBus } from './bus/message-bus.js';
import type { HarnessOptions } from './harness-options.js';
import type { AssembledPart } from './harness-part.js';
import { AsyncToolMiddleware } from './middleware/async-tool/index.js';
import { InboxMiddleware } from './middleware/inbox/index.js';
import type { BackgroundTasks } from './tasks/background-tasks.js';
import type { Middleware } from '@rxscope/core';
import { SubagentsMiddleware } from './middleware/subagents/index.js';
import { SkillCuratorMiddleware } from './middleware/skill-curator/index.js';
import type { WorkspaceFileSystem } from './workspace/workspace-file-system.js';

/** The inbox part of a harness: messages pushed to the session's inbox join the running reply. */
export function inboxPart(options: HarnessOptions, bus: MessageBus): AssembledPart {
  const inbox = options.inbox ?? true;
  if (inbox === false)
    return { part: { name: 'InboxMiddleware', option: 'inbox', enabled: false, reason: 'inbox: false' } };
  const where = options.bus ? 'the given bus' : 'an in-memory bus (this process only)';
  return {
    part: {
      name: 'InboxMiddleware',
      option: 'inbox',
      enabled: true,
      reason: `messages pushed to inbox:<session> on ${where} join the running reply's next step`,
    },
    middleware: new InboxMiddleware({ ...(typeof inbox === 'object' ? inbox : {}), bus }),
  };
}

/** Tool calls that outlive a timeout go to the background; their results come through the inbox. */
export function asyncToolPart(options: HarnessOptions, tasks: BackgroundTasks): AssembledPart {
  const off = (reason: string): AssembledPart => ({
    part: { name: 'AsyncToolMiddleware', option: 'asyncTools', enabled: false, reason },
  });
  const asyncTools = options.asyncTools ?? true;
  if (asyncTools === false) return off('asyncTools: false');
  if (options.inbox === false) return off('needs the inbox (inbox: false), which delivers the late results');
  const middleware = new AsyncToolMiddleware({ ...(typeof asyncTools === 'object' ? asyncTools : {}), tasks });
  const seconds =
    middleware.timeoutMs % 1000 === 0
      ? `${(middleware.timeoutMs / 1000).toLocaleString('en-US')} s`
      : `${middleware.timeoutMs} ms`;
  return {
    part: {
      name: 'AsyncToolMiddleware',
      option: 'asyncTools',
      enabled: true,
      reason: `a tool call still running after ${seconds} gets a placeholder and goes on in the background; its result comes through the inbox`,
    },
    middleware,
  };
}

/**
 * Subagents: `agent_spawn` and the task tools. Subagents get `lent` (the sandbox lifecycle, so they
 * have `execute` in a sandbox of their own, and eviction); background spawns need the inbox.
 */
export function subagentsPart(
  options: HarnessOptions,
  fs: WorkspaceFileSystem,
  tasks: BackgroundTasks,
  lent: readonly Middleware[],
): AssembledPart {
  const subagents = options.subagents ?? true;
  if (subagents === false)
    return { part: { name: 'SubagentsMiddleware', option: 'subagents', enabled: false, reason: 'subagents: false' } };
  const { taskQueue, ...o } = typeof subagents === 'object' ? subagents : {};
  const background = options.inbox !== false;
  const middleware = new SubagentsMiddleware({
    ...o,
    middlewares: [...lent, ...(o.middlewares ?? [])],
    fileSystem: fs,
    ...(background ? { tasks, ...(taskQueue ? { taskQueue } : {}) } : {}),
  });
  const reason =
    `agent_spawn runs subagents/<name>.md${o.generalPurpose === false ? '' : ' or a general-purpose subagent'} in a context of its own, ` +
    `nested at most ${middleware.maxDepth} deep; ${background ? `background spawns ${taskQueue ? 'go to the task queue and ' : ''}report through the inbox` : 'no background spawns (inbox: false)'}`;
  return { part: { name: 'SubagentsMiddleware', option: 'subagents', enabled: true, reason }, middleware };
}

/** Skills: `<available_skills>` in the prompt, `load_skill`, usage counts and the curator. */
export function skillsPart(options: HarnessOptions, fs: WorkspaceFileSystem): AssembledPart {
  const skills = options.skills ?? true;
  if (skills === false)
    return { part: { name: 'SkillCuratorMiddleware', option: 'skills', enabled: false, reason: 'skills: false' } };
  const o = typeof skills === 'object' ? skills : {};
  const curation =
    o.curateEveryHours === false
      ? 'no curation'
      : `agent-written skills unused ${o.staleAfterDays ?? 30} days marked stale, archived ${o.archiveAfterDays ?? 30} days later`;
  return {
    part: {
      name: 'SkillCuratorMiddleware',
      option: 'skills',
      enabled: true,
      reason: `skills/<name>/SKILL.md listed in <available_skills>, loaded with load_skill and counted; ${curation}`,
    },
    middleware: new SkillCuratorMiddleware({ ...o, fileSystem: fs }),
  };
}
