// Skills (skills/<name>/SKILL.md) and subagents (subagents/<name>.md) as a user writes them: what
// the public loaders read, what they refuse and how they say it, and what the assembled agent
// shows the model when a definition is broken. Public entry point only.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { textOfMsg } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import {
  createHarnessAgent,
  FrontMatterError,
  GENERAL_PURPOSE,
  listSkills,
  listSubagents,
  loadSkill,
  loadSubagent,
  LocalFileSystem,
  SKILL_NAME,
  SUBAGENT_NAME,
} from '../index.js';
import { resultOf, run, tempDir, textOfResult } from './helpers.js';

describe('skills and subagents as workspace files', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  const write = (path: string, text: string) => {
    mkdirSync(join(dir.path, path, '..'), { recursive: true });
    writeFileSync(join(dir.path, path), text);
  };
  const skill = (name: string, text: string) => write(`skills/${name}/SKILL.md`, text);
  const subagent = (name: string, text: string) => write(`subagents/${name}.md`, text);
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => dir.cleanup());

  describe('loadSkill', () => {
    it('reads the description, the author, the stale mark and the body', async () => {
      skill(
        'release',
        '---\nname: release\ndescription: "  How to cut a release.  "\nauthor: agent\nstale_since: 2026-01-02T00:00:00Z\n---\n1. Tag.\n2. Publish.\n',
      );
      const s = await loadSkill(fs, 'release');
      expect(s).toMatchObject({
        name: 'release',
        description: 'How to cut a release.',
        author: 'agent',
        staleSince: '2026-01-02T00:00:00Z',
        file: 'skills/release/SKILL.md',
      });
      expect(s.body).toBe('1. Tag.\n2. Publish.'); // trimmed
      expect(s.mtimeMs).toBeGreaterThan(0);
    });

    it('takes a SKILL.md without front matter as all instructions, with no description', async () => {
      skill('plain', 'Just do it.\n');
      const s = await loadSkill(fs, 'plain');
      expect(s.description).toBe('');
      expect(s.body).toBe('Just do it.');
      expect(s.author).toBeUndefined();
      expect(s.staleSince).toBeUndefined();
    });

    it('refuses names that are paths or hidden folders before touching the disk', async () => {
      write('secret/SKILL.md', '---\ndescription: outside skills/\n---\nleak');
      for (const name of ['../secret', '.archive', 'a/b', '', '-x', 'x'.repeat(65)]) {
        await expect(loadSkill(fs, name)).rejects.toThrow(`"${name}" is not a skill name (letters, digits, - and _).`);
      }
      expect(SKILL_NAME.test('release_notes-2')).toBe(true);
    });

    it('names the skills there are when one is missing, and says when there are none', async () => {
      await expect(loadSkill(fs, 'deploy')).rejects.toThrow(
        'There is no skill "deploy" (skills/deploy/SKILL.md). There are no skills.',
      );
      skill('triage', '---\ndescription: Sort bugs.\n---\nLabel.');
      skill('release', '---\ndescription: Release.\n---\nTag.');
      mkdirSync(join(dir.path, 'skills', 'empty-folder'), { recursive: true });
      await expect(loadSkill(fs, 'deploy')).rejects.toThrow('Skills: release, triage.');
      // A folder without SKILL.md is not a skill either.
      await expect(loadSkill(fs, 'empty-folder')).rejects.toThrow(/There is no skill "empty-folder"/);
    });

    it('refuses invalid YAML with a FrontMatterError naming the file', async () => {
      skill('broken', '---\ndescription: [unclosed\n---\nbody');
      const error = await loadSkill(fs, 'broken').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FrontMatterError);
      expect((error as FrontMatterError).code).toBe('invalid_front_matter');
      expect((error as Error).message).toContain('skills/broken/SKILL.md');
    });

    it('refuses a description or an author that is not a string, naming the field', async () => {
      skill('listy', '---\ndescription: [a, b]\n---\nbody');
      await expect(loadSkill(fs, 'listy')).rejects.toThrow('skills/listy/SKILL.md: "description" must be a string.');
      skill('numeric', '---\nauthor: 42\n---\nbody');
      await expect(loadSkill(fs, 'numeric')).rejects.toThrow('skills/numeric/SKILL.md: "author" must be a string.');
    });
  });

  describe('listSkills', () => {
    it('lists the valid skills by name and hands each broken one to onError', async () => {
      skill('zeta', '---\ndescription: Last.\n---\nz');
      skill('alpha', '---\ndescription: First.\n---\na');
      skill('broken', '---\ndescription: [unclosed\n---\nb');
      mkdirSync(join(dir.path, 'skills', '.archive', 'old'), { recursive: true });
      writeFileSync(join(dir.path, 'skills', '.archive', 'old', 'SKILL.md'), '---\ndescription: Archived.\n---\no');
      writeFileSync(join(dir.path, 'skills', 'README.md'), 'not a skill');
      const errors: unknown[] = [];
      const skills = await listSkills(fs, (e) => errors.push(e));
      expect(skills.map((s) => s.name)).toEqual(['alpha', 'zeta']);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(FrontMatterError);
    });

    it('is empty when the workspace has no skills folder', async () => {
      expect(await listSkills(new LocalFileSystem(join(dir.path, 'fresh')))).toEqual([]);
    });
  });

  describe('in the assembled agent', () => {
    it('leaves a broken skill out of <available_skills>, reports it, and load_skill explains its error to the model', async () => {
      skill('good', '---\ndescription: A good skill.\n---\nDo good.');
      skill('broken', '---\ndescription: [unclosed\n---\nb');
      skill('nodesc', 'Instructions only.');
      const errors: unknown[] = [];
      const model = new ScriptedChatModel([
        { toolCalls: [{ id: 'b', name: 'load_skill', input: { name: 'broken' } }] },
        { toolCalls: [{ id: 'p', name: 'load_skill', input: { name: '../../etc' } }] },
        { text: 'done' },
      ]);
      const agent = createHarnessAgent({
        model,
        workspace: dir.path,
        skills: { onError: (e) => errors.push(e) },
      });
      const { events } = await run(agent, 'go');
      const prompt = textOfMsg(model.requests[0]!.messages[0]!);
      expect(prompt).toContain(
        '<available_skills>\n<skill name="good">A good skill.</skill>\n<skill name="nodesc">(no description)</skill>\n</available_skills>',
      );
      expect(prompt).not.toContain('broken');
      expect(errors.length).toBeGreaterThanOrEqual(1);
      expect(errors.every((e) => e instanceof FrontMatterError)).toBe(true);
      const broken = resultOf(events, 'b');
      expect(broken.status).toBe('error');
      expect(textOfResult(broken)).toContain('skills/broken/SKILL.md');
      const escaping = resultOf(events, 'p');
      expect(escaping.status).toBe('error');
      expect(textOfResult(escaping)).toMatch(/not a skill name/);
      // A failed load is not counted as a use.
      expect(agent.saveState().middlewareState['SkillCuratorMiddleware']).toMatchObject({ usage: {} });
    });

    it('offers no <available_skills> section when the workspace has no skills, and no load_skill with skills: false', async () => {
      const model = new ScriptedChatModel([{ text: 'a' }, { text: 'b' }]);
      await run(createHarnessAgent({ model, workspace: dir.path }), 'hi');
      expect(textOfMsg(model.requests[0]!.messages[0]!)).not.toContain('<available_skills>');
      expect(model.requests[0]!.tools.map((t) => t.name)).toContain('load_skill');

      skill('good', '---\ndescription: A good skill.\n---\nDo good.');
      await run(createHarnessAgent({ model, workspace: dir.path, skills: false }), 'hi');
      expect(textOfMsg(model.requests[1]!.messages[0]!)).not.toContain('<available_skills>');
      expect(model.requests[1]!.tools.map((t) => t.name)).not.toContain('load_skill');
    });

    it('lists at most maxListed skills, the most used first, shown by name', async () => {
      for (const n of ['a1', 'b2', 'c3']) skill(n, `---\ndescription: Skill ${n}.\n---\n${n}`);
      const model = new ScriptedChatModel([
        { toolCalls: [{ id: 'l', name: 'load_skill', input: { name: 'c3' } }] },
        { text: 'ok' },
        { text: 'again' },
      ]);
      const agent = createHarnessAgent({ model, workspace: dir.path, skills: { maxListed: 2 } });
      await run(agent, 'first');
      const listed = (i: number) =>
        [...textOfMsg(model.requests[i]!.messages[0]!).matchAll(/<skill name="([^"]+)"/g)].map((m) => m[1]);
      expect(listed(0)).toEqual(['a1', 'b2']);
      await run(agent, 'second');
      // c3 was loaded once, so it is among the two listed now (still shown in name order).
      expect(listed(2)).toEqual(['a1', 'c3']);
    });
  });

  describe('loadSubagent and listSubagents', () => {
    it('reads the description, tools, model and prompt; the front matter name wins over the file name', async () => {
      subagent(
        'reviewer',
        '---\nname: code-reviewer\ndescription: Reviews diffs.\ntools: [read_file, grep_files]\nmodel: small\n---\nYou review code.\n',
      );
      expect(await loadSubagent(fs, 'reviewer')).toEqual({
        name: 'code-reviewer',
        description: 'Reviews diffs.',
        tools: ['read_file', 'grep_files'],
        model: 'small',
        prompt: 'You review code.',
        file: 'subagents/reviewer.md',
      });
    });

    it('without front matter: the file name, no description, every tool of the parent, the parent model', async () => {
      subagent('helper', 'Help out.');
      const def = await loadSubagent(fs, 'helper');
      expect(def).toEqual({ name: 'helper', description: '', prompt: 'Help out.', file: 'subagents/helper.md' });
      expect(def.tools).toBeUndefined();
      expect(def.model).toBeUndefined();
    });

    it('refuses bad fields, naming the file and the field', async () => {
      subagent('a', '---\ntools: read_file\n---\nx');
      await expect(loadSubagent(fs, 'a')).rejects.toThrow(
        'subagents/a.md: "tools" must be a list of tool names, such as [read_file, grep_files].',
      );
      subagent('b', '---\ntools: [read_file, 3]\n---\nx');
      await expect(loadSubagent(fs, 'b')).rejects.toThrow(/subagents\/b\.md: "tools" must be a list/);
      subagent('c', '---\nmodel: "   "\n---\nx');
      await expect(loadSubagent(fs, 'c')).rejects.toThrow('subagents/c.md: "model" must be a non-empty string.');
      subagent('d', '---\ndescription: 12\n---\nx');
      await expect(loadSubagent(fs, 'd')).rejects.toThrow('subagents/d.md: "description" must be a non-empty string.');
      subagent('e', '---\n- just\n- a list\n---\nx');
      await expect(loadSubagent(fs, 'e')).rejects.toBeInstanceOf(FrontMatterError);
    });

    it('names the declared subagents when one is missing, and points at the general-purpose one', async () => {
      await expect(loadSubagent(fs, 'ghost')).rejects.toThrow(
        'There is no subagent "ghost" (subagents/ghost.md). No subagents are declared. Leave name out for a general-purpose subagent.',
      );
      subagent('writer', 'Write.');
      subagent('reader', 'Read.');
      write('subagents/notes.txt', 'not a definition');
      mkdirSync(join(dir.path, 'subagents', 'folder.md'), { recursive: true });
      await expect(loadSubagent(fs, 'ghost')).rejects.toThrow('Declared subagents: reader, writer.');
      expect(await listSubagents(fs)).toEqual(['reader', 'writer']);
    });

    it('refuses names that are paths', async () => {
      write('secret.md', 'outside');
      for (const name of ['../secret', 'sub/x', '.hidden', '']) {
        await expect(loadSubagent(fs, name)).rejects.toThrow(`"${name}" is not a subagent name`);
      }
      expect(SUBAGENT_NAME.test('code-reviewer')).toBe(true);
    });

    it('the general-purpose subagent has every tool of the parent and asks for a self-contained report', () => {
      expect(GENERAL_PURPOSE.name).toBe('general-purpose');
      expect(GENERAL_PURPOSE.tools).toBeUndefined();
      expect(GENERAL_PURPOSE.prompt).toMatch(/self-contained report/);
    });
  });
});
