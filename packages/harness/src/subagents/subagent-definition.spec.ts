// loadSubagent and listSubagents on a real workspace: what a subagents/<name>.md declares, and
// each refusal (a name that is a path, a missing subagent, bad fields, a huge file).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../__tests__/helpers.js';
import { sparseFile } from '../__tests__/probes.js';
import { FileTooLargeError, FrontMatterError, LocalFileSystem } from '../workspace/index.js';
import { GENERAL_PURPOSE, listSubagents, loadSubagent, SUBAGENT_NAME } from './subagent-definition.js';

describe('subagent definitions', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => dir.cleanup());
  const declare = (name: string, text: string): void => writeFileSync(join(dir.path, 'subagents', `${name}.md`), text);

  it('reads name, description, tools, model and the body as the prompt', async () => {
    declare(
      'reviewer',
      '---\nname: reviewer\ndescription: Reviews a change.\ntools: [read_file, grep_files]\nmodel: small\n---\n' +
        'You review code.\n\nReport each problem.\n',
    );
    expect(await loadSubagent(fs, 'reviewer')).toEqual({
      name: 'reviewer',
      description: 'Reviews a change.',
      tools: ['read_file', 'grep_files'],
      model: 'small',
      prompt: 'You review code.\n\nReport each problem.',
      file: 'subagents/reviewer.md',
    });
  });

  it('without front matter: the file name, every tool of the parent, the parent’s model', async () => {
    declare('helper', 'Help with anything.\n');
    const def = await loadSubagent(fs, 'helper');
    expect(def.name).toBe('helper');
    expect(def.description).toBe('');
    expect(def).not.toHaveProperty('tools');
    expect(def).not.toHaveProperty('model');
    expect(def.prompt).toBe('Help with anything.');
  });

  it('keeps an empty tools list as no tools at all, not as every tool', async () => {
    declare('talker', '---\ntools: []\n---\nJust talk.\n');
    expect((await loadSubagent(fs, 'talker')).tools).toEqual([]);
  });

  it.each(['../etc/passwd', 'sub/agent', '.hidden', '', 'a b', 'x'.repeat(65)])(
    'refuses %j as a subagent name',
    async (name) => {
      await expect(loadSubagent(fs, name)).rejects.toThrow(
        `"${name}" is not a subagent name (letters, digits, - and _).`,
      );
    },
  );

  it('names the declared subagents when the one asked for is missing, and the general-purpose fallback', async () => {
    declare('researcher', 'Research.\n');
    declare('reviewer', 'Review.\n');
    await expect(loadSubagent(fs, 'reveiwer')).rejects.toThrow(
      'There is no subagent "reveiwer" (subagents/reveiwer.md). Declared subagents: researcher, reviewer. ' +
        'Leave name out for a general-purpose subagent.',
    );
  });

  it('says no subagents are declared in a fresh workspace', async () => {
    await expect(loadSubagent(fs, 'any')).rejects.toThrow('No subagents are declared.');
  });

  it('does not take a folder named like a definition for one', async () => {
    mkdirSync(join(dir.path, 'subagents', 'odd.md'));
    await expect(loadSubagent(fs, 'odd')).rejects.toThrow('There is no subagent "odd"');
    expect(await listSubagents(fs)).toEqual([]);
  });

  it.each([
    ['tools as a string', 'tools: read_file', '"tools" must be a list of tool names, such as [read_file, grep_files].'],
    ['tools with a number', 'tools: [read_file, 3]', '"tools" must be a list of tool names'],
    ['a blank model', 'model: "   "', '"model" must be a non-empty string.'],
    ['a numeric description', 'description: 42', '"description" must be a non-empty string.'],
    ['a list as name', 'name: [a, b]', '"name" must be a non-empty string.'],
  ])('refuses %s, naming the file and the field', async (_label, line, message) => {
    declare('bad', `---\n${line}\n---\nPrompt.\n`);
    await expect(loadSubagent(fs, 'bad')).rejects.toThrow(`subagents/bad.md: ${message}`);
  });

  it('refuses front matter that is not YAML with a FrontMatterError', async () => {
    declare('broken', '---\ntools: [read_file\n---\nPrompt.\n');
    await expect(loadSubagent(fs, 'broken')).rejects.toBeInstanceOf(FrontMatterError);
  });

  it('refuses a definition over 1 MiB without reading it, advising to shorten it', async () => {
    sparseFile(join(dir.path, 'subagents', 'huge.md'), 512 * 1024 * 1024, '---\nname: huge\n---\n');
    const error = await loadSubagent(fs, 'huge').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileTooLargeError);
    expect((error as Error).message).toContain('subagents/huge.md');
    expect((error as Error).message).toContain('Shorten its instructions.');
  });

  it('lists .md files with valid names, sorted, without their extension', async () => {
    declare('zed', 'z');
    declare('alpha', 'a');
    writeFileSync(join(dir.path, 'subagents', 'notes.txt'), 'not a definition');
    writeFileSync(join(dir.path, 'subagents', '.draft.md'), 'hidden');
    mkdirSync(join(dir.path, 'subagents', 'nested'));
    writeFileSync(join(dir.path, 'subagents', 'nested', 'deep.md'), 'deep');
    expect(await listSubagents(fs)).toEqual(['alpha', 'zed']);
  });

  it('lists nothing when the subagents folder is missing', async () => {
    const bare = tempDir();
    try {
      expect(await listSubagents(new LocalFileSystem(bare.path, { createLayout: false }))).toEqual([]);
    } finally {
      bare.cleanup();
    }
  });

  it('has a general-purpose subagent with every tool and a prompt asking for a self-contained report', () => {
    expect(GENERAL_PURPOSE.name).toBe('general-purpose');
    expect(GENERAL_PURPOSE).not.toHaveProperty('tools');
    expect(GENERAL_PURPOSE.prompt).toContain('self-contained report');
    expect(SUBAGENT_NAME.test(GENERAL_PURPOSE.name)).toBe(true);
  });
});
