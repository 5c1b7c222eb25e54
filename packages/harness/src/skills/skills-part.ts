import { type HarnessPartDefinition, objectOf, offPart, onPart } from '../harness-part.js';
import { SkillCuratorMiddleware, type SkillCuratorOptions } from './skill-curator/index.js';

/** The options the skills part reads. */
export interface SkillsPartOptions {
  readonly skills?: boolean | Omit<SkillCuratorOptions, 'fileSystem'>;
}

/** Skills: `<available_skills>` in the prompt, `load_skill`, usage counts and the curator. */
export const skillsPart: HarnessPartDefinition<SkillsPartOptions> = {
  build(options, env) {
    const name = 'SkillCuratorMiddleware';
    const skills = options.skills ?? true;
    if (skills === false) return offPart(name, 'skills', 'skills: false');
    const o = objectOf(skills);
    const curation =
      o.curateEveryHours === false
        ? 'no curation'
        : `agent-written skills unused ${o.staleAfterDays ?? 30} days marked stale, archived ${o.archiveAfterDays ?? 30} days later`;
    return onPart(
      name,
      'skills',
      `skills/<name>/SKILL.md listed in <available_skills>, loaded with load_skill and counted; ${curation}`,
      { middleware: new SkillCuratorMiddleware({ ...o, fileSystem: env.fileSystem }) },
    );
  },
};
