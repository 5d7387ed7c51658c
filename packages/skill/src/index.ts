export {
  ErrSkillNotFound,
  ErrSkillKeyConflict,
  ErrSkillMaterializationFailed,
  ErrSkillSourceMissing,
  ErrSkillKeyMissing,
} from "./errors/sentinels.js";
export { SkillKeyConflictError } from "./errors/skill-key-conflict-error.js";
export { SkillMaterializationError } from "./errors/skill-materialization-error.js";
