import { sentinel } from "@adaptor/errors";

// Skill identities (docs/errors.md "Pre-invocation errors"); the root re-exports these objects.

/** A requested catalogue key was not resolved. */
export const ErrSkillNotFound = sentinel("adaptor.skill.SkillNotFound", "skill not found");
/** Structurally different skill declarations use the same key. */
export const ErrSkillKeyConflict = sentinel("adaptor.skill.SkillKeyConflict", "skill key conflict");
/** A resolved skill could not be staged for the driver. */
export const ErrSkillMaterializationFailed = sentinel("adaptor.skill.SkillMaterializationFailed", "skill materialization failed");
/** A concrete skill has no source. */
export const ErrSkillSourceMissing = sentinel("adaptor.skill.SkillSourceMissing", "skill source missing");
/** A concrete skill has an empty key. */
export const ErrSkillKeyMissing = sentinel("adaptor.skill.SkillKeyMissing", "skill key missing");
