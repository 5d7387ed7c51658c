export {
  ErrSkillNotFound,
  ErrSkillKeyConflict,
  ErrSkillMaterializationFailed,
  ErrSkillSourceMissing,
  ErrSkillKeyMissing,
} from "./errors/sentinels.js";
export { SkillKeyConflictError } from "./errors/skill-key-conflict-error.js";
export { SkillMaterializationError } from "./errors/skill-materialization-error.js";
export type {
  Skill,
  SkillSource,
  SkillDirSource,
  SkillInlineSource,
  SkillArchiveSource,
  SkillArchiveFormat,
  SkillKeyRef,
  SkillSpec,
} from "./skill/skill.js";
export {
  skillDir,
  skillInline,
  skillArchive,
  skillKey,
  requireSkill,
  type SkillOptions,
  type SkillInlineInit,
  type SkillArchiveOptions,
} from "./skill/constructors.js";
export type { SkillProvider, SkillCatalog } from "./catalog/skill-provider.js";
export { skillSet } from "./catalog/skill-set.js";
export { resolveSkills, type ResolveSkillsOptions } from "./resolve/resolve-skills.js";
export type { ResolvedSkill } from "./resolve/resolved-skill.js";
export { materializeSkills, type MaterializeSkillsOptions } from "./materialize/materialize-skills.js";
export type { MaterializedSkill, MaterializedSkills } from "./materialize/materialized-skills.js";
export { DEFAULT_SKILL_ARCHIVE_LIMITS, type SkillArchiveLimits } from "./materialize/archive-limits.js";
