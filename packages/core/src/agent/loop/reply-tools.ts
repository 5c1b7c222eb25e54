import type { Tool } from '../../tool/tool.js';

/** The agent's tools with a reply's own tools added (names are checked unique before). */
export function withTools(tools: ReadonlyMap<string, Tool>, extra: readonly Tool[]): ReadonlyMap<string, Tool> {
  const all = new Map(tools);
  for (const tool of extra) all.set(tool.name, tool);
  return all;
}

/**
 * A reply's tools: the agent's (read again at each step: a middleware's list may change) with the
 * reply's own added (structured output's final tool, tools passed with the reply). The merge is
 * redone only when the agent's tools changed.
 */
export class ReplyTools {
  /** The agent's tools the merged ones were built from. */
  private base: ReadonlyMap<string, Tool> | undefined;
  private merged: { readonly map: ReadonlyMap<string, Tool>; readonly list: readonly Tool[] } | undefined;

  constructor(
    private readonly agent: { readonly tools: ReadonlyMap<string, Tool>; readonly toolList: readonly Tool[] },
    private readonly extra: readonly Tool[],
  ) {}

  get map(): ReadonlyMap<string, Tool> {
    return this.extra.length ? this.withExtra().map : this.agent.tools;
  }

  get list(): readonly Tool[] {
    return this.extra.length ? this.withExtra().list : this.agent.toolList;
  }

  private withExtra(): { readonly map: ReadonlyMap<string, Tool>; readonly list: readonly Tool[] } {
    const base = this.agent.tools;
    if (this.merged === undefined || base !== this.base) {
      this.base = base;
      this.merged = { map: withTools(base, this.extra), list: [...this.agent.toolList, ...this.extra] };
    }
    return this.merged;
  }
}
