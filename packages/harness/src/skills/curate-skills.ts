import { type WorkspaceFileSystem, formatFrontMatter } from '../workspace/index.js';
import { SKILL_ARCHIVE, type SkillDefinition } from './skill-definition.js';

/** How often a skill was loaded, and when last (ms since the epoch). */
export interface SkillUsage {
  readonly count: number;
  readonly lastUsedAt: number;
}

/** When the curator acts. */
export interface SkillCurationPolicy {
  /** An agent-written skill unused this long (and unchanged) is marked stale. Default 30. */
  readonly staleAfterDays?: number;
  /** A stale skill still unused this long after it was marked is archived. Default 30. */
  readonly archiveAfterDays?: number;
}

/** What one curation did. */
export interface SkillCurationResult {
  /** Skills marked stale now. */
  readonly stale: readonly string[];
  /** Skills moved to `skills/.archive/` now, with where they went. */
  readonly archived: readonly { readonly name: string; readonly to: string }[];
}

const DAY = 86_400_000;

/**
 * Curates the agent-written skills (front matter `author: agent`; the user's are never touched):
 * one unused for `staleAfterDays` (since its last `load_skill`, or its last change when never
 * loaded) gets `stale_since` in its front matter; one stale for `archiveAfterDays` more and still
 * unused moves, with every file of its folder, to `skills/.archive/<name>/` (a suffix when that
 * exists). Nothing is deleted: an archived skill is moved back by hand.
 *
 * @example
 * ```ts
 * const { stale, archived } = await curateSkills(fs, await listSkills(fs), usage, Date.now());
 * ```
 */
export async function curateSkills(
  fs: WorkspaceFileSystem,
  skills: readonly SkillDefinition[],
  usage: Readonly<Record<string, SkillUsage>>,
  now: number,
  policy: SkillCurationPolicy = {},
): Promise<SkillCurationResult> {
  const staleAfter = (policy.staleAfterDays ?? 30) * DAY;
  const archiveAfter = (policy.archiveAfterDays ?? 30) * DAY;
  const stale: string[] = [];
  const archived: { name: string; to: string }[] = [];
  for (const skill of skills) {
    if (skill.author !== 'agent') continue;
    const lastUsed = usage[skill.name]?.lastUsedAt ?? 0;
    if (skill.staleSince === undefined) {
      if (now - Math.max(lastUsed, skill.mtimeMs) < staleAfter) continue;
      await fs.writeFile(
        skill.file,
        formatFrontMatter({ ...skill.data, stale_since: new Date(now).toISOString() }, skill.body),
      );
      stale.push(skill.name);
      continue;
    }
    const since = Date.parse(skill.staleSince);
    if (!Number.isFinite(since) || lastUsed > since || now - since < archiveAfter) continue;
    archived.push({ name: skill.name, to: await archiveSkill(fs, skill.name) });
  }
  return { stale, archived };
}

/**
 * A skill loaded again is in use: its `stale_since` mark is removed.
 *
 * @example
 * ```ts
 * if (skill.staleSince) await unmarkStale(fs, skill);
 * ```
 */
export async function unmarkStale(fs: WorkspaceFileSystem, skill: SkillDefinition): Promise<void> {
  const { stale_since: _gone, ...data } = skill.data;
  await fs.writeFile(skill.file, formatFrontMatter(data, skill.body));
}

/** Moves every file of `skills/<name>/` under `skills/.archive/`; returns the new folder. */
async function archiveSkill(fs: WorkspaceFileSystem, name: string): Promise<string> {
  let to = `${SKILL_ARCHIVE}/${name}`;
  for (let n = 2; await fs.stat(to); n++) to = `${SKILL_ARCHIVE}/${name}-${n}`;
  const from = `skills/${name}`;
  // Paths relative to the workspace root.
  const files = await fs.glob('**/*', { cwd: from, respectGitignore: false });
  // Copy everything first, then remove: a failure half-way leaves the skill whole where it was.
  for (const file of files) await fs.writeFile(`${to}/${file.slice(from.length + 1)}`, await fs.readFile(file));
  for (const file of files) await fs.removeFile(file);
  return to;
}
