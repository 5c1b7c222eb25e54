import { defer, from, type Observable, type ObservableInput } from 'rxjs';
import type { Tool, ToolContext, ToolOutput } from '@rxscope/core';
import { HarnessOptionError } from '../../options/index.js';
import { SUBAGENT_NAME } from '../subagent-definition.js';

/** Refuses a `remote` option that is not a record of named tools that run. */
export function checkRemoteSubagents(remote: unknown): void {
  if (remote === undefined) return;
  const refuse = (message: string) =>
    new HarnessOptionError('invalid_option', 'SubagentsMiddleware.remote', `SubagentsMiddleware.remote: ${message}`);
  if (typeof remote !== 'object' || remote === null || Array.isArray(remote))
    throw refuse('expected an object of tools by subagent name, such as { billing: a2aAgentTool({ url }) }.');
  for (const [name, tool] of Object.entries(remote as Record<string, unknown>)) {
    if (!SUBAGENT_NAME.test(name)) throw refuse(`"${name}" is not a subagent name (letters, digits, - and _).`);
    if (typeof (tool as Partial<Tool> | undefined)?.execute !== 'function')
      throw refuse(`"${name}" must be a tool that runs (with execute), such as a2aAgentTool({ url }).`);
  }
}

/** The remote subagents as the model reads them in `agent_spawn`'s description. */
export function remoteCatalogue(remote: Readonly<Record<string, Tool>> | undefined): string {
  return Object.entries(remote ?? {})
    .map(([name, tool]) => `- ${name}: ${tool.description || '(no description)'} (a remote agent)`)
    .join('\n');
}

/**
 * One spawn of a remote subagent: its tool called with `{message: task}` in the foreground (its
 * progress events and cancellation are the spawn's). Remote subagents run in the foreground only.
 */
export function spawnRemote(
  tool: Tool,
  input: { readonly task: string; readonly background?: boolean },
  toolCtx: ToolContext,
): Observable<ToolOutput> {
  return defer(() => {
    if (input.background) throw new Error('A remote subagent runs in the foreground; spawn it without background.');
    return from(tool.execute!({ message: input.task }, toolCtx) as ObservableInput<ToolOutput>);
  });
}
