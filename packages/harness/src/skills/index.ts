// What the rest of the harness may use of skills/: its other files are its own.
export {
  curateSkills,
  unmarkStale,
  type SkillCurationPolicy,
  type SkillCurationResult,
  type SkillUsage,
} from './curate-skills.js';
export { SkillCuratorMiddleware, type SkillCuratorOptions, type SkillCuratorState } from './skill-curator/index.js';
export { SKILL_ARCHIVE, SKILL_NAME, listSkills, loadSkill, type SkillDefinition } from './skill-definition.js';
