import { parse, stringify } from 'yaml';

/**
 * What the index of memories shows for one memory: its front matter.
 *
 * @example
 * ```ts
 * const header: MemoryHeader = { name: 'user-preferences', description: 'How the user likes answers', type: 'user' };
 * ```
 */
export interface MemoryHeader {
  /** Stable name (the file name without `.md`): letters, digits, `-`, `_`. */
  readonly name: string;
  /** One line saying what the memory holds; the model picks memories by it. */
  readonly description: string;
  /** A kind, e.g. `user`, `project`, `feedback`, `reference`. */
  readonly type: string;
}

/**
 * One memory: front matter and Markdown body.
 *
 * @example
 * ```ts
 * const memory: Memory = { name: 'user-preferences', description: 'How the user likes answers', type: 'user', content: 'Short answers, metric units.' };
 * ```
 */
export interface Memory extends MemoryHeader {
  readonly content: string;
}

/**
 * Where memories live. `FileMemoryBackend` (`@rxscope/middleware-builtin/node`) keeps Markdown
 * files with front matter; `KnowledgeMemoryBackend` keeps them in memory with hybrid search.
 *
 * @example
 * ```ts
 * const backend: MemoryBackend = new FileMemoryBackend({ dir: './workspace/memory' });
 * ```
 */
export interface MemoryBackend {
  /** The front matter of every memory. */
  list(): Promise<readonly MemoryHeader[]>;
  /** The memories with these names (unknown names are left out). */
  read(names: readonly string[]): Promise<readonly Memory[]>;
  /** Adds a memory, or replaces the one with the same name. */
  write(memory: Memory): Promise<void>;
  /** The memories most relevant to `query`, best first. */
  search(query: string, topK: number): Promise<readonly Memory[]>;
  /**
   * A view of this backend holding only the memories of `scope` (a user id), apart from every
   * other scope and from the backend's own. Memory middlewares use it for each user's replies
   * (their `scope: 'user'`, the default); without it, a reply for a user is refused.
   */
  scoped?(scope: string): MemoryBackend;
}

const NAME = /^[A-Za-z0-9_-]{1,80}$/;

/** Checks a memory's fields; throws naming the first bad one. */
export function checkMemory(memory: Memory): Memory {
  if (!NAME.test(memory.name))
    throw new TypeError(`memory name "${memory.name}" must be 1-80 letters, digits, "-" or "_".`);
  for (const field of ['description', 'type'] as const) {
    const value = memory[field];
    if (typeof value !== 'string' || !value.trim() || value.includes('\n'))
      throw new TypeError(`memory ${field} must be one non-empty line.`);
  }
  if (typeof memory.content !== 'string') throw new TypeError('memory content must be a string.');
  return memory;
}

/**
 * Parses a memory file: YAML front matter between `---` lines (`name`, `description`, `type`),
 * then the Markdown body. `fallbackName` is used when the front matter has no name.
 *
 * @example
 * ```ts
 * parseMemoryFile('---\nname: prefs\ndescription: How the user likes answers\ntype: user\n---\nShort answers.\n', 'prefs');
 * ```
 */
export function parseMemoryFile(text: string, fallbackName: string): Memory {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match)
    throw new TypeError(`memory "${fallbackName}": no front matter (a '---' block with name, description and type).`);
  let front: unknown;
  try {
    front = parse(match[1]!);
  } catch (e) {
    throw new TypeError(`memory "${fallbackName}": front matter is not valid YAML (${(e as Error).message}).`, {
      cause: e,
    });
  }
  const f = (front ?? {}) as Record<string, unknown>;
  return checkMemory({
    name: typeof f['name'] === 'string' ? f['name'] : fallbackName,
    description: typeof f['description'] === 'string' ? f['description'] : '',
    type: typeof f['type'] === 'string' ? f['type'] : '',
    content: match[2]!.trim(),
  });
}

/** A memory as a file: front matter, then the body. */
export function formatMemoryFile(memory: Memory): string {
  const { name, description, type } = checkMemory(memory);
  return `---\n${stringify({ name, description, type }).trimEnd()}\n---\n${memory.content.trim()}\n`;
}
