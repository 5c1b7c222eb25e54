import { FileTooLargeError, WORKSPACE_LAYOUT, type WorkspaceFileSystem, parseFrontMatter } from '../workspace/index.js';

/**
 * Largest `SKILL.md` read: 1 MiB. Its body goes into the context whole when the skill is loaded;
 * longer material belongs in files beside it, read with the file tools.
 *
 * @example
 * ```ts
 * if ((await fs.stat('skills/release/SKILL.md'))!.size > MAX_SKILL_FILE_BYTES) console.warn('too large to load');
 * ```
 */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;

/**
 * A skill as `skills/<name>/SKILL.md` declares it: front matter `name`, `description` (what the
 * model reads in `<available_skills>` to decide whether to load it), optionally `author: agent`
 * for a skill the agent wrote itself (only those are curated) and `stale_since` (set by the
 * curator); the body is the instructions `load_skill` returns.
 *
 * @example
 * ```md
 * ---
 * name: release
 * description: How to cut a release of this project (changelog, tag, publish).
 * ---
 * 1. Run `npx changeset version` ...
 * ```
 */
export interface SkillDefinition {
  /** The folder name (`skills/<name>/`). */
  readonly name: string;
  readonly description: string;
  /** `'agent'` when the agent wrote the skill; anything else is the user's. */
  readonly author?: string;
  /** When the curator marked it stale (ISO time); undefined while it is in use. */
  readonly staleSince?: string;
  /** `skills/<name>/SKILL.md` */
  readonly file: string;
  /** The front matter's fields as read. */
  readonly data: Readonly<Record<string, unknown>>;
  /** The instructions. */
  readonly body: string;
  /** Last change of SKILL.md (ms since the epoch). */
  readonly mtimeMs: number;
}

/**
 * Names a skill folder may have: letters, digits, `-` and `_` (so `skills/.archive/` is no skill).
 *
 * @example
 * ```ts
 * SKILL_NAME.test('release-notes'); // true; '../x' and '.archive' are refused
 * ```
 */
export const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Where the curator moves archived skills: `skills/.archive/<name>/`.
 *
 * @example
 * ```ts
 * await fs.list(SKILL_ARCHIVE); // [{ path: 'skills/.archive/old-deploy', type: 'directory' }]
 * ```
 */
export const SKILL_ARCHIVE = `${WORKSPACE_LAYOUT.skills}/.archive`;

/**
 * Reads `skills/<name>/SKILL.md`. Throws an error that says what is wrong (not a skill name; no
 * such skill, with the ones there are; bad front matter).
 *
 * @example
 * ```ts
 * const skill = await loadSkill(fs, 'release'); // { name: 'release', description: '...', body: '1. Run ...' }
 * ```
 */
export async function loadSkill(fs: WorkspaceFileSystem, name: string): Promise<SkillDefinition> {
  if (!SKILL_NAME.test(name)) throw new Error(`"${name}" is not a skill name (letters, digits, - and _).`);
  const file = `${WORKSPACE_LAYOUT.skills}/${name}/SKILL.md`;
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat || stat.type !== 'file') {
    const known = (await listSkills(fs)).map((s) => s.name);
    throw new Error(
      `There is no skill "${name}" (${file}). ${known.length ? `Skills: ${known.join(', ')}.` : 'There are no skills.'}`,
    );
  }
  const bytes = await fs.readFile(file, { maxBytes: MAX_SKILL_FILE_BYTES }).catch((e: unknown) => {
    if (!(e instanceof FileTooLargeError)) throw e;
    throw new FileTooLargeError({
      path: file,
      maxBytes: MAX_SKILL_FILE_BYTES,
      ...(e.size !== undefined ? { size: e.size } : {}),
      reader: 'a skill',
      advice: 'Keep the instructions short and put longer material in files beside SKILL.md.',
    });
  });
  const { data, body } = parseFrontMatter(new TextDecoder().decode(bytes), file);
  const text = (key: string): string | undefined => {
    const v = data[key];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw new Error(`${file}: "${key}" must be a string.`);
    return v.trim();
  };
  const author = text('author');
  const staleSince = text('stale_since');
  return {
    name,
    description: text('description') ?? '',
    ...(author !== undefined ? { author } : {}),
    ...(staleSince !== undefined ? { staleSince } : {}),
    file,
    data,
    body,
    mtimeMs: stat.mtimeMs,
  };
}

/**
 * The skills of the workspace (`skills/<name>/SKILL.md`), sorted by name. A skill whose file
 * cannot be read is left out and its error passed to `onError`.
 *
 * @example
 * ```ts
 * (await listSkills(fs)).map((s) => s.name); // ['release', 'triage']
 * ```
 */
export async function listSkills(
  fs: WorkspaceFileSystem,
  onError?: (error: unknown) => void,
): Promise<SkillDefinition[]> {
  const entries = await fs.list(WORKSPACE_LAYOUT.skills).catch(() => []);
  const names = entries
    .filter((e) => e.type === 'directory')
    .map((e) => e.path.split('/').pop()!)
    .filter((n) => SKILL_NAME.test(n))
    .sort();
  const skills: SkillDefinition[] = [];
  for (const name of names) {
    const file = `${WORKSPACE_LAYOUT.skills}/${name}/SKILL.md`;
    if ((await fs.stat(file).catch(() => undefined))?.type !== 'file') continue;
    try {
      skills.push(await loadSkill(fs, name));
    } catch (e) {
      onError?.(e);
    }
  }
  return skills;
}
