import type { Tool } from '@rxscope/core';
import { listSubagents, loadSubagent } from '../subagent-definition.js';
import type { WorkspaceFileSystem } from '../../workspace/index.js';

/** Most declared subagents listed for the model. */
const MAX_LISTED = 50;

/**
 * The declared subagents as the model reads them in `agent_spawn`'s description, one line each
 * (`- reviewer: Reviews code.`); a file that does not load is listed with why. Empty when none
 * are declared.
 */
export async function subagentCatalogue(fs: WorkspaceFileSystem): Promise<string> {
  const names = await listSubagents(fs);
  const lines = await Promise.all(
    names.slice(0, MAX_LISTED).map(async (name) => {
      try {
        const def = await loadSubagent(fs, name);
        return `- ${name}: ${def.description || '(no description)'}`;
      } catch (e) {
        return `- ${name}: (cannot be used: ${e instanceof Error ? e.message : String(e)})`;
      }
    }),
  );
  if (names.length > MAX_LISTED) lines.push(`- ... and ${names.length - MAX_LISTED} more in subagents/`);
  return lines.join('\n');
}

/** `agent_spawn` with the catalogue in its description (what the model sees; the tool itself is unchanged). */
export function withCatalogue(spawn: Tool, catalogue: string): Tool {
  const description = `${spawn.description}\n\nDeclared subagents (name: what it is for):\n${catalogue}`;
  return { ...spawn, description, schema: { ...spawn.schema, description } };
}
