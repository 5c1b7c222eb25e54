import type { Middleware } from '../middleware/middleware.js';
import type { Tool } from '../tool/tool.js';
import { AgentUsageError } from './errors.js';

const NONE: readonly Tool[] = [];
const NO_LISTS: readonly (readonly Tool[])[] = [];

/**
 * An agent's tools: its own, then each middleware's `tools()`. The middlewares' lists are read
 * again whenever the tools are asked for (each reasoning step, each acting step), so a
 * middleware whose tools change (an MCP server's changed tool list) changes what an existing
 * agent offers at its next model request. The map is rebuilt only when a list changed (by the
 * identity of its tools), so reading stays cheap.
 */
export class AgentTools {
  private lists: readonly (readonly Tool[])[] = NO_LISTS;
  // Set by build(), which the constructor runs.
  private currentMap!: ReadonlyMap<string, Tool>;
  private currentList: readonly Tool[] = NONE;

  constructor(
    private readonly own: readonly Tool[],
    private readonly middlewares: readonly Middleware[],
  ) {
    this.build(this.read());
  }

  /** The tools by name (the same object while nothing changed). */
  get map(): ReadonlyMap<string, Tool> {
    this.refresh();
    return this.currentMap;
  }

  /** The agent's own tools (its `tools` option), without those its middlewares offer. */
  get ownList(): readonly Tool[] {
    return this.own;
  }

  /** The tools in order: the agent's own, then each middleware's (the same array while nothing changed). */
  get list(): readonly Tool[] {
    this.refresh();
    return this.currentList;
  }

  private read(): readonly (readonly Tool[])[] {
    // Most agents have no middleware offering tools: nothing to read, nothing to allocate.
    if (!this.middlewares.some((m) => m.tools !== undefined)) return NO_LISTS;
    return this.middlewares.map((m) => m.tools?.() ?? NONE);
  }

  private refresh(): void {
    const lists = this.read();
    if (lists.every((list, i) => sameTools(list, this.lists[i]!))) return;
    this.build(lists);
  }

  /** Throws an {@link AgentUsageError} when two tools share a name (and keeps the previous tools). */
  private build(lists: readonly (readonly Tool[])[]): void {
    const map = new Map<string, Tool>();
    for (const tool of lists.length ? [...this.own, ...lists.flat()] : this.own) {
      if (map.has(tool.name))
        throw new AgentUsageError(`Two tools are named "${tool.name}"; tool names must be unique.`);
      map.set(tool.name, tool);
    }
    this.lists = lists;
    this.currentMap = map;
    this.currentList = [...map.values()];
  }
}

function sameTools(a: readonly Tool[], b: readonly Tool[]): boolean {
  return a === b || (a.length === b.length && a.every((t, i) => t === b[i]));
}
