import { defineTool, type Tool } from '@rxscope/core';
import { z } from 'zod';

/**
 * The tools of `SubagentsMiddleware`.
 *
 * @example
 * ```ts
 * const subagentCalls = events.filter((e) => e.type === 'TOOL_CALL_START' && SUBAGENT_TOOL_NAMES.includes(e.name));
 * ```
 */
export const SUBAGENT_TOOL_NAMES: readonly string[] = ['agent_spawn', 'agent_send', 'task_output', 'task_cancel'];

const unbound = (name: string) => () => {
  throw new Error(`${name} runs only in an agent with SubagentsMiddleware (it needs the reply's session).`);
};

/**
 * The four tools as the model sees them. They run through `SubagentsMiddleware.onActing`, which
 * gives them the reply's agent and session; called any other way they fail with an error result.
 */
export function subagentTools(): Tool[] {
  return [
    defineTool({
      name: 'agent_spawn',
      description:
        'Hand a self-contained task to a subagent, which works in its own fresh context and answers with a report. ' +
        'name: a subagent declared in subagents/<name>.md (list_files subagents shows them); leave it out for a ' +
        'general-purpose subagent with your tools. task: everything it needs to know, as it sees nothing of this ' +
        'conversation. background: true returns a task id at once and the report arrives later as a message; ' +
        'otherwise you get the report as the result.',
      input: z.object({
        name: z.string().optional().describe('A declared subagent (subagents/<name>.md); omit for general-purpose.'),
        task: z.string().min(1).describe('The task, self-contained.'),
        background: z.boolean().optional().describe('Run in the background; the result arrives later as a message.'),
      }),
      concurrencySafe: true,
      execute: unbound('agent_spawn'),
    }),
    defineTool({
      name: 'agent_send',
      description:
        'Send a message to a running background subagent (by its task id); it reads it before its next step.',
      input: z.object({ task_id: z.string().min(1), message: z.string().min(1) }),
      execute: unbound('agent_send'),
    }),
    defineTool({
      name: 'task_output',
      description:
        'How a background task (a subagent, or a tool call that went to the background) stands, and its result once done.',
      input: z.object({ task_id: z.string().min(1) }),
      readOnly: true,
      execute: unbound('task_output'),
    }),
    defineTool({
      name: 'task_cancel',
      description: 'Stop a running background task (a subagent, or a tool call that went to the background).',
      input: z.object({ task_id: z.string().min(1) }),
      execute: unbound('task_cancel'),
    }),
  ];
}
