import { builtOne, partEnv, toolNamesOf } from '../__tests__/part-env.js';
import { SkillCuratorMiddleware } from './skill-curator/index.js';
import { skillsPart } from './skills-part.js';

describe('the skills part', () => {
  const env = partEnv();
  afterAll(() => env.cleanup());

  it('is on by default with load_skill; the reason gives the curation policy', () => {
    const on = builtOne(skillsPart, {}, env);
    expect(on.middleware).toBeInstanceOf(SkillCuratorMiddleware);
    expect(toolNamesOf(on)).toEqual(['load_skill']);
    expect(on.part.reason).toContain('agent-written skills unused 30 days marked stale, archived 30 days later');
    const custom = builtOne(skillsPart, { skills: { staleAfterDays: 7, archiveAfterDays: 14 } }, env);
    expect(custom.part.reason).toContain('unused 7 days marked stale, archived 14 days later');
    expect(builtOne(skillsPart, { skills: { curateEveryHours: false } }, env).part.reason).toMatch(/; no curation$/);
  });

  it('is off with false', () => {
    expect(builtOne(skillsPart, { skills: false }, env)).toEqual({
      part: { name: 'SkillCuratorMiddleware', option: 'skills', enabled: false, reason: 'skills: false' },
    });
  });
});
