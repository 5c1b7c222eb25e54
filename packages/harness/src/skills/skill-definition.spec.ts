// loadSkill, listSkills and the curation functions on a real workspace: what a skill file yields,
// each refusal (a bad name, a missing skill, bad front matter, a huge file), and what curation
// writes and moves (only agent-written skills; nothing deleted).
import { mkdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../__tests__/helpers.js';
import { sparseFile } from '../__tests__/probes.js';
import { FileTooLargeError, FrontMatterError, LocalFileSystem } from '../workspace/index.js';
import { curateSkills, unmarkStale } from './curate-skills.js';
import { listSkills, loadSkill, MAX_SKILL_FILE_BYTES, SKILL_ARCHIVE, SKILL_NAME } from './skill-definition.js';

const DAY = 86_400_000;

describe('skill definitions', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => dir.cleanup());

  const skillFile = (name: string): string => join(dir.path, 'skills', name, 'SKILL.md');
  const writeSkill = (name: string, text: string): void => {
    mkdirSync(join(dir.path, 'skills', name), { recursive: true });
    writeFileSync(skillFile(name), text);
  };
  const agentSkill = (name: string, extra = ''): void =>
    writeSkill(name, `---\nname: ${name}\ndescription: Does ${name}.\nauthor: agent\n${extra}---\nStep one.\n`);

  describe('loadSkill', () => {
    it('reads the description, author and body, trimming them', async () => {
      writeSkill('release', '---\ndescription: "  Cut a release.  "\nauthor: agent\n---\n\n1. Tag it.\n\n');
      const skill = await loadSkill(fs, 'release');
      expect(skill).toMatchObject({
        name: 'release',
        description: 'Cut a release.',
        author: 'agent',
        file: 'skills/release/SKILL.md',
        body: '1. Tag it.',
      });
      expect(skill.staleSince).toBeUndefined();
      expect(skill.mtimeMs).toBeGreaterThan(0);
    });

    it('takes a file without front matter as a skill with an empty description and no author', async () => {
      writeSkill('notes', 'Just do it.\n');
      const skill = await loadSkill(fs, 'notes');
      expect(skill.description).toBe('');
      expect(skill).not.toHaveProperty('author');
      expect(skill.body).toBe('Just do it.');
    });

    it('treats empty and null fields as absent', async () => {
      writeSkill('blank', '---\ndescription:\nauthor: ""\nstale_since: null\n---\nBody\n');
      const skill = await loadSkill(fs, 'blank');
      expect(skill.description).toBe('');
      expect(skill).not.toHaveProperty('author');
      expect(skill).not.toHaveProperty('staleSince');
    });

    it.each(['../secrets', '.archive', 'a/b', '', '-lead', 'x'.repeat(65), 'name with space'])(
      'refuses %j as a skill name before touching the disk',
      async (name) => {
        await expect(loadSkill(fs, name)).rejects.toThrow(`"${name}" is not a skill name (letters, digits, - and _).`);
      },
    );

    it('accepts a name of 64 characters, the longest allowed', () => {
      expect(SKILL_NAME.test('a'.repeat(64))).toBe(true);
      expect(SKILL_NAME.test('A1_b-2')).toBe(true);
    });

    it('names the skills there are when the one asked for is missing', async () => {
      agentSkill('deploy');
      agentSkill('triage');
      await expect(loadSkill(fs, 'deplyo')).rejects.toThrow(
        'There is no skill "deplyo" (skills/deplyo/SKILL.md). Skills: deploy, triage.',
      );
    });

    it('says there are no skills in an empty workspace, and a folder without SKILL.md is none', async () => {
      mkdirSync(join(dir.path, 'skills', 'empty'), { recursive: true });
      await expect(loadSkill(fs, 'empty')).rejects.toThrow(
        'There is no skill "empty" (skills/empty/SKILL.md). There are no skills.',
      );
    });

    it('refuses a SKILL.md that is a folder', async () => {
      mkdirSync(skillFile('odd'), { recursive: true });
      await expect(loadSkill(fs, 'odd')).rejects.toThrow('There is no skill "odd"');
    });

    it('refuses a field that is not a string, naming the file and the field', async () => {
      writeSkill('typed', '---\ndescription: [a, b]\n---\nBody\n');
      await expect(loadSkill(fs, 'typed')).rejects.toThrow('skills/typed/SKILL.md: "description" must be a string.');
    });

    it('refuses invalid front matter with a FrontMatterError naming the file', async () => {
      writeSkill('broken', '---\ndescription: [unclosed\n---\nBody\n');
      const error = await loadSkill(fs, 'broken').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FrontMatterError);
      expect((error as FrontMatterError).code).toBe('invalid_front_matter');
      expect((error as Error).message).toContain('skills/broken/SKILL.md');
    });

    it('refuses a SKILL.md over 1 MiB without reading it, advising to keep it short', async () => {
      mkdirSync(join(dir.path, 'skills', 'huge'), { recursive: true });
      sparseFile(skillFile('huge'), 1024 * 1024 * 1024, '---\ndescription: big\n---\n');
      const error = await loadSkill(fs, 'huge').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FileTooLargeError);
      expect(error).toMatchObject({ code: 'file_too_large', maxBytes: MAX_SKILL_FILE_BYTES });
      expect((error as Error).message).toContain('skills/huge/SKILL.md');
      expect((error as Error).message).toContain('put longer material in files beside SKILL.md');
    });
  });

  describe('listSkills', () => {
    it('lists skills sorted by name, skipping folders with odd names or no SKILL.md', async () => {
      agentSkill('zeta');
      agentSkill('alpha');
      mkdirSync(join(dir.path, 'skills', 'no-file'), { recursive: true });
      mkdirSync(join(dir.path, SKILL_ARCHIVE, 'old'), { recursive: true });
      writeFileSync(join(dir.path, SKILL_ARCHIVE, 'old', 'SKILL.md'), 'archived\n');
      writeFileSync(join(dir.path, 'skills', 'README.md'), 'not a skill\n');
      expect((await listSkills(fs)).map((s) => s.name)).toEqual(['alpha', 'zeta']);
    });

    it('leaves out a skill that cannot be read and hands its error to onError', async () => {
      agentSkill('good');
      writeSkill('bad', '---\n: : :\n  - [\n---\nBody\n');
      const errors: unknown[] = [];
      const skills = await listSkills(fs, (e) => errors.push(e));
      expect(skills.map((s) => s.name)).toEqual(['good']);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(FrontMatterError);
    });

    it('is empty when the skills folder is missing', async () => {
      const bare = tempDir();
      try {
        expect(await listSkills(new LocalFileSystem(bare.path, { createLayout: false }))).toEqual([]);
      } finally {
        bare.cleanup();
      }
    });
  });

  describe('curateSkills', () => {
    const now = Date.UTC(2026, 5, 1);

    it("marks an unused agent skill stale, writing stale_since, and never touches the user's", async () => {
      agentSkill('auto');
      writeSkill('mine', '---\ndescription: Mine.\n---\nKeep.\n');
      const before = readFileSync(skillFile('mine'), 'utf8');
      const skills = await listSkills(fs);
      const result = await curateSkills(fs, skills, {}, Date.now() + 31 * DAY);
      expect(result).toEqual({ stale: ['auto'], archived: [] });
      const marked = await loadSkill(fs, 'auto');
      expect(marked.staleSince).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(marked.body).toBe('Step one.');
      expect(marked.description).toBe('Does auto.');
      expect(readFileSync(skillFile('mine'), 'utf8')).toBe(before);
    });

    it('keeps a skill that was loaded recently, or changed recently, unmarked', async () => {
      agentSkill('used');
      const skills = await listSkills(fs);
      const later = skills[0]!.mtimeMs + 40 * DAY;
      const recent = { used: { count: 3, lastUsedAt: later - DAY } };
      expect(await curateSkills(fs, skills, recent, later)).toEqual({ stale: [], archived: [] });
      expect(await curateSkills(fs, skills, {}, skills[0]!.mtimeMs + DAY)).toEqual({ stale: [], archived: [] });
    });

    it('honours a shorter staleAfterDays', async () => {
      agentSkill('quick');
      const skills = await listSkills(fs);
      const result = await curateSkills(fs, skills, {}, skills[0]!.mtimeMs + 3 * DAY, { staleAfterDays: 2 });
      expect(result.stale).toEqual(['quick']);
    });

    it('archives a skill stale long enough, moving every file of its folder, and deletes nothing', async () => {
      agentSkill('old', `stale_since: "${new Date(now - 40 * DAY).toISOString()}"\n`);
      writeFileSync(join(dir.path, 'skills', 'old', 'notes.md'), 'extra material\n');
      mkdirSync(join(dir.path, 'skills', 'old', 'deep'));
      writeFileSync(join(dir.path, 'skills', 'old', 'deep', 'data.txt'), 'deep file\n');
      const result = await curateSkills(fs, await listSkills(fs), {}, now);
      expect(result).toEqual({ stale: [], archived: [{ name: 'old', to: 'skills/.archive/old' }] });
      expect(existsSync(skillFile('old'))).toBe(false);
      expect(readFileSync(join(dir.path, SKILL_ARCHIVE, 'old', 'notes.md'), 'utf8')).toBe('extra material\n');
      expect(readFileSync(join(dir.path, SKILL_ARCHIVE, 'old', 'deep', 'data.txt'), 'utf8')).toBe('deep file\n');
      expect(readFileSync(join(dir.path, SKILL_ARCHIVE, 'old', 'SKILL.md'), 'utf8')).toContain('Step one.');
      expect((await listSkills(fs)).map((s) => s.name)).toEqual([]);
    });

    it('archives beside an earlier archive of the same name instead of overwriting it', async () => {
      mkdirSync(join(dir.path, SKILL_ARCHIVE, 'old'), { recursive: true });
      writeFileSync(join(dir.path, SKILL_ARCHIVE, 'old', 'SKILL.md'), 'the first one\n');
      agentSkill('old', `stale_since: "${new Date(now - 40 * DAY).toISOString()}"\n`);
      const result = await curateSkills(fs, await listSkills(fs), {}, now);
      expect(result.archived).toEqual([{ name: 'old', to: 'skills/.archive/old-2' }]);
      expect(readFileSync(join(dir.path, SKILL_ARCHIVE, 'old', 'SKILL.md'), 'utf8')).toBe('the first one\n');
    });

    it('keeps a stale skill that was loaded after it was marked, or marked too recently', async () => {
      const since = now - 40 * DAY;
      agentSkill('back', `stale_since: "${new Date(since).toISOString()}"\n`);
      const skills = await listSkills(fs);
      expect((await curateSkills(fs, skills, { back: { count: 1, lastUsedAt: since + DAY } }, now)).archived).toEqual(
        [],
      );
      expect((await curateSkills(fs, skills, {}, now, { archiveAfterDays: 60 })).archived).toEqual([]);
      expect(existsSync(skillFile('back'))).toBe(true);
    });

    it('leaves alone a skill whose stale_since is not a date', async () => {
      agentSkill('garbled', 'stale_since: "sometime"\n');
      const result = await curateSkills(fs, await listSkills(fs), {}, now + 1_000 * DAY);
      expect(result).toEqual({ stale: [], archived: [] });
      expect(existsSync(skillFile('garbled'))).toBe(true);
    });

    it('unmarkStale removes only the stale mark, keeping the other fields and the body', async () => {
      agentSkill('revived', 'stale_since: "2026-01-01T00:00:00.000Z"\nextra: kept\n');
      await unmarkStale(fs, await loadSkill(fs, 'revived'));
      const skill = await loadSkill(fs, 'revived');
      expect(skill).not.toHaveProperty('staleSince');
      expect(skill.data).toEqual({ name: 'revived', description: 'Does revived.', author: 'agent', extra: 'kept' });
      expect(skill.body).toBe('Step one.');
    });
  });
});
