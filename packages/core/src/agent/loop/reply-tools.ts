import type { Tool } from '../../tool/tool.js';

/** The agent's tools with a reply's own tools added (names are checked unique before). */
export function withTools(tools: ReadonlyMap<string, Tool>, extra: readonly Tool[]): ReadonlyMap<string, Tool> {
  const all = new Map(tools);
  for (const tool of extra) all.set(tool.name, tool);
  return all;
}
