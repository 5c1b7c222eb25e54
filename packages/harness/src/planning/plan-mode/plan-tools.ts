import { z } from 'zod';
import { defineTool, type Tool } from '@rxscope/core';
import { WORKSPACE_LAYOUT, type WorkspaceFileSystem } from '../../workspace/index.js';

/** The plan tools: `plan_enter {}`, `plan_write {content}`, `plan_exit {summary?}`. */
export interface PlanTools {
  readonly enter: Tool<Record<string, never>>;
  readonly write: Tool<{ content: string }>;
  readonly exit: Tool<{ summary?: string | undefined }>;
}

/**
 * Builds the plan tools. They only describe what happened: the switch in and out of plan mode
 * is made by `PlanModeMiddleware` when they succeed. `plan_write` writes `plans/PLAN.md`; the
 * three are marked read-only (they change nothing of the user's project) so plan mode lets
 * them run, and `plan_exit` asks for confirmation through an ask rule the middleware adds.
 */
export function planTools(fs: WorkspaceFileSystem): PlanTools {
  return {
    enter: defineTool({
      name: 'plan_enter',
      description:
        'Enter plan mode before a larger change: explore with read-only tools, write the plan with plan_write, then ask the user ' +
        'to approve it with plan_exit. Tools that change files or run commands are denied while planning.',
      input: z.object({}).strict(),
      readOnly: true,
      concurrencySafe: false,
      execute: () =>
        `Plan mode is on. Explore with read-only tools, write the plan to ${WORKSPACE_LAYOUT.plan} with plan_write, then call plan_exit.`,
    }),
    write: defineTool({
      name: 'plan_write',
      description: `Write (replace) the plan, in Markdown, to ${WORKSPACE_LAYOUT.plan}.`,
      input: z.object({ content: z.string().min(1).describe('The whole plan, in Markdown.') }),
      readOnly: true,
      concurrencySafe: false,
      execute: async ({ content }) => {
        await fs.writeFile(WORKSPACE_LAYOUT.plan, content.endsWith('\n') ? content : `${content}\n`);
        return `The plan is saved in ${WORKSPACE_LAYOUT.plan} (${content.split('\n').length} lines). Call plan_exit to ask the user to approve it.`;
      },
    }),
    exit: defineTool({
      name: 'plan_exit',
      description:
        'Ask the user to approve the plan and leave plan mode. Only a confirmation leaves plan mode; if it is rejected, keep planning.',
      input: z.object({ summary: z.string().optional().describe('A short summary of the plan for the user.') }),
      readOnly: true,
      concurrencySafe: false,
      execute: () => `The user approved the plan; plan mode is off. Carry out the plan in ${WORKSPACE_LAYOUT.plan}.`,
    }),
  };
}
