import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import {
  closeTestServer,
  customValues,
  resultOf,
  run,
  systemPromptOf,
  tempDir,
  testServerModel,
  textOfResult,
} from '../../__tests__/helpers.js';
import { createHarnessAgent, describeHarness } from '../../assembly/create-harness-agent.js';
import { presets } from '../../assembly/presets.js';

const DAY = 86_400_000;

describe('SkillCuratorMiddleware', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer;
  const skill = (name: string, front: string, body: string, mtime?: number) => {
    mkdirSync(join(dir.path, 'skills', name), { recursive: true });
    const file = join(dir.path, 'skills', name, 'SKILL.md');
    writeFileSync(file, `---\n${front}\n---\n${body}\n`);
    if (mtime !== undefined) utimesSync(file, mtime / 1000, mtime / 1000);
    return file;
  };
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    if (server) await closeTestServer(server);
    dir.cleanup();
  });

  it('lists the skills in <available_skills>, load_skill returns the instructions, and loads are counted in the agent state', async () => {
    skill('release', 'name: release\ndescription: How to cut a release.', '1. Run npx changeset version.');
    skill('triage', 'name: triage\ndescription: Sort incoming bug reports.', 'Label each issue.');
    mkdirSync(join(dir.path, 'skills', 'no-file')); // a folder without SKILL.md is no skill
    server = await startOpenAITestServer({
      script: [
        { toolCalls: [{ id: 'l1', name: 'load_skill', input: { name: 'release' } }] },
        { toolCalls: [{ id: 'l2', name: 'load_skill', input: { name: 'deploy' } }] },
        { text: 'Released.' },
      ],
    });
    const agent = createHarnessAgent({ model: testServerModel(server), workspace: dir.path });
    const { events } = await run(agent, 'Cut a release');
    expect(systemPromptOf(server.requests[0]!)).toContain(
      '<available_skills>\n<skill name="release">How to cut a release.</skill>\n<skill name="triage">Sort incoming bug reports.</skill>\n</available_skills>',
    );
    expect(textOfResult(resultOf(events, 'l1'))).toBe(
      '<skill name="release" folder="skills/release/">\n1. Run npx changeset version.\n</skill>',
    );
    const unknown = resultOf(events, 'l2');
    expect(unknown.status).toBe('error');
    expect(textOfResult(unknown)).toMatch(/There is no skill "deploy".*Skills: release, triage\./);
    const state = agent.saveState().middlewareState['SkillCuratorMiddleware'] as {
      usage: Record<string, { count: number }>;
    };
    expect(state.usage).toEqual({ release: { count: 1, lastUsedAt: expect.any(Number) } });

    // A restored agent keeps counting.
    const restored = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      state: agent.saveState(),
    });
    server.enqueue({ toolCalls: [{ id: 'l3', name: 'load_skill', input: { name: 'release' } }] }, { text: 'Again.' });
    await run(restored, 'Once more');
    expect(
      (restored.saveState().middlewareState['SkillCuratorMiddleware'] as typeof state).usage['release']!.count,
    ).toBe(2);
  });

  it("marks unused agent-written skills stale, archives them later (never deletes), leaves the user's alone, and a load keeps one", async () => {
    let now = Date.parse('2026-03-01T00:00:00Z');
    const old = now - 40 * DAY;
    skill('old-helper', 'name: old-helper\ndescription: An old trick.\nauthor: agent', 'Do the trick.', old);
    skill('used-helper', 'name: used-helper\ndescription: A trick in use.\nauthor: agent', 'Use it.', old);
    skill('users-own', 'name: users-own\ndescription: The user wrote this.', 'Keep me.', old);
    mkdirSync(join(dir.path, 'skills', 'old-helper', 'scripts'));
    writeFileSync(join(dir.path, 'skills', 'old-helper', 'scripts', 'run.sh'), 'echo trick\n');
    server = await startOpenAITestServer({ script: [{ text: 'ok' }] });
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      skills: { now: () => now },
    });

    const first = await run(agent, 'hello');
    expect(customValues(first.events, 'skills_curated')).toEqual([
      { stale: ['old-helper', 'used-helper'], archived: [] },
    ]);
    expect(readFileSync(join(dir.path, 'skills', 'old-helper', 'SKILL.md'), 'utf8')).toContain(
      'stale_since: 2026-03-01T00:00:00.000Z',
    );
    expect(readFileSync(join(dir.path, 'skills', 'users-own', 'SKILL.md'), 'utf8')).not.toContain('stale_since');
    expect(systemPromptOf(server.requests[0]!)).toContain(
      '<skill name="old-helper" stale="true">An old trick.</skill>',
    );

    // Ten days later the agent loads one of them: in use again, its mark goes.
    now += 10 * DAY;
    server.enqueue({ toolCalls: [{ id: 'u1', name: 'load_skill', input: { name: 'used-helper' } }] }, { text: 'used' });
    const second = await run(agent, 'use the helper');
    expect(customValues(second.events, 'skills_curated')).toEqual([]); // within a day of the last curation: no run
    expect(readFileSync(join(dir.path, 'skills', 'used-helper', 'SKILL.md'), 'utf8')).not.toContain('stale_since');

    // Thirty more days: the stale, unused one is archived with its files; nothing is deleted.
    now += 30 * DAY;
    server.enqueue({ text: 'ok' });
    const third = await run(agent, 'hello again');
    expect(customValues(third.events, 'skills_curated')).toEqual([
      { stale: [], archived: [{ name: 'old-helper', to: 'skills/.archive/old-helper' }] },
    ]);
    expect(existsSync(join(dir.path, 'skills', 'old-helper', 'SKILL.md'))).toBe(false);
    expect(readFileSync(join(dir.path, 'skills', '.archive', 'old-helper', 'SKILL.md'), 'utf8')).toContain(
      'Do the trick.',
    );
    expect(readFileSync(join(dir.path, 'skills', '.archive', 'old-helper', 'scripts', 'run.sh'), 'utf8')).toBe(
      'echo trick\n',
    );
    expect(systemPromptOf(server.requests.at(-1)!)).not.toContain('old-helper');
    expect(existsSync(join(dir.path, 'skills', 'users-own', 'SKILL.md'))).toBe(true);
    expect(existsSync(join(dir.path, 'skills', 'used-helper', 'SKILL.md'))).toBe(true);
  });

  it('is a harness part with an off switch, off in the minimal preset', () => {
    const on = createHarnessAgent({
      model: {
        modelName: 'm',
        provider: 'p',
        stream: () => {
          throw new Error('unused');
        },
      },
      workspace: dir.path,
    });
    expect(describeHarness(on).parts.find((p) => p.name === 'SkillCuratorMiddleware')).toMatchObject({
      enabled: true,
      option: 'skills',
      hooks: ['onReasoning', 'onActing', 'onSystemPrompt'],
      tools: ['load_skill'],
    });
    const off = createHarnessAgent({ model: on.model, workspace: dir.path, skills: false });
    expect(describeHarness(off).parts.find((p) => p.name === 'SkillCuratorMiddleware')).toMatchObject({
      enabled: false,
      reason: 'skills: false',
    });
    expect(off.tools.map((t) => t.name)).not.toContain('load_skill');
    const minimal = createHarnessAgent({ ...presets.minimal(), model: on.model, workspace: dir.path });
    expect(describeHarness(minimal).parts.find((p) => p.name === 'SkillCuratorMiddleware')!.enabled).toBe(false);
  });
});
