import { FileTooLargeError, WORKSPACE_LAYOUT, type WorkspaceFileSystem, parseFrontMatter } from '../workspace/index.js';

/** Largest `subagents/<name>.md` read: 1 MiB (its body is a system prompt, read whole). */
const MAX_SUBAGENT_FILE_BYTES = 1024 * 1024;

/**
 * A subagent as `subagents/<name>.md` declares it: front matter `name`, `description`, `tools`
 * (names of the parent's tools it may use; all of them when absent) and `model` (a name from
 * the `models` option; the parent's model when absent), and the body as its system prompt.
 *
 * @example
 * ```md
 * ---
 * name: reviewer
 * description: Reviews a change for bugs and missing tests.
 * tools: [read_file, grep_files]
 * model: small
 * ---
 * You review code. Report each problem with its file and line.
 * ```
 */
export interface SubagentDefinition {
  readonly name: string;
  readonly description: string;
  /** Tool names; undefined: every tool of the parent. */
  readonly tools?: readonly string[];
  /** A model name (a key of `models`); undefined: the parent's model. */
  readonly model?: string;
  /** The system prompt. */
  readonly prompt: string;
  /** The file it was read from (undefined for the general-purpose subagent). */
  readonly file?: string;
}

/**
 * Names a subagent file may have: letters, digits, `-` and `_` (no path).
 *
 * @example
 * ```ts
 * SUBAGENT_NAME.test('code-reviewer'); // true; '../x' is refused
 * ```
 */
export const SUBAGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * The general-purpose subagent (`agent_spawn` without a name): every tool of the parent, a
 * prompt for self-contained work.
 *
 * @example
 * ```ts
 * events.filter((e) => e.source === GENERAL_PURPOSE.name); // what general-purpose subagents did
 * ```
 */
export const GENERAL_PURPOSE: SubagentDefinition = {
  name: 'general-purpose',
  description: 'A general-purpose agent with the same tools as you, for a self-contained piece of work.',
  prompt:
    'You are a subagent: another agent gave you one task. Do it on your own with the tools you have; nobody answers ' +
    'questions. End with a complete, self-contained report of what you found or did — the other agent sees only that ' +
    'final answer, not your steps.',
};

/**
 * Reads `subagents/<name>.md`. Throws an error that says what is wrong (no such subagent, with
 * the ones there are; a bad front matter field).
 *
 * @example
 * ```ts
 * const reviewer = await loadSubagent(fs, 'reviewer'); // { name: 'reviewer', tools: ['read_file', 'grep_files'], ... }
 * ```
 */
export async function loadSubagent(fs: WorkspaceFileSystem, name: string): Promise<SubagentDefinition> {
  if (!SUBAGENT_NAME.test(name)) throw new Error(`"${name}" is not a subagent name (letters, digits, - and _).`);
  const file = `${WORKSPACE_LAYOUT.subagents}/${name}.md`;
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat || stat.type !== 'file') {
    const known = await listSubagents(fs);
    throw new Error(
      `There is no subagent "${name}" (${file}). ` +
        (known.length ? `Declared subagents: ${known.join(', ')}.` : 'No subagents are declared.') +
        ' Leave name out for a general-purpose subagent.',
    );
  }
  const bytes = await fs.readFile(file, { maxBytes: MAX_SUBAGENT_FILE_BYTES }).catch((e: unknown) => {
    if (!(e instanceof FileTooLargeError)) throw e;
    throw new FileTooLargeError({
      path: file,
      maxBytes: MAX_SUBAGENT_FILE_BYTES,
      ...(e.size !== undefined ? { size: e.size } : {}),
      reader: 'a subagent definition',
      advice: 'Shorten its instructions.',
    });
  });
  const { data, body } = parseFrontMatter(new TextDecoder().decode(bytes), file);
  const field = (key: string): string | undefined => {
    const v = data[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string' || !v.trim()) throw new Error(`${file}: "${key}" must be a non-empty string.`);
    return v.trim();
  };
  const tools = data['tools'];
  if (tools !== undefined && (!Array.isArray(tools) || !tools.every((t) => typeof t === 'string'))) {
    throw new Error(`${file}: "tools" must be a list of tool names, such as [read_file, grep_files].`);
  }
  const declared = field('name') ?? name;
  const model = field('model');
  return {
    name: declared,
    description: field('description') ?? '',
    ...(tools !== undefined ? { tools } : {}),
    ...(model !== undefined ? { model } : {}),
    prompt: body,
    file,
  };
}

/**
 * The names of the declared subagents (`subagents/*.md`), sorted.
 *
 * @example
 * ```ts
 * await listSubagents(fs); // ['researcher', 'reviewer']
 * ```
 */
export async function listSubagents(fs: WorkspaceFileSystem): Promise<string[]> {
  const entries = await fs.list(WORKSPACE_LAYOUT.subagents).catch(() => []);
  return entries
    .filter((e) => e.type === 'file' && e.path.endsWith('.md'))
    .map((e) => e.path.split('/').pop()!.slice(0, -3))
    .filter((n) => SUBAGENT_NAME.test(n))
    .sort();
}
