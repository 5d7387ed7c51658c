import type { SkillSource } from "../skill/skill.js";

/** A skill after resolution: checked, deduplicated, with its runtime folder name fixed for the run. */
export interface ResolvedSkill {
  /** The skill's key (unique within the run). */
  readonly key: string;
  /** Folder name the CLI loads it under; unique (case-insensitively) within the run. */
  readonly runtimeName: string;
  /** Where its files come from. */
  readonly source: SkillSource;
  /** True when any declaration of the key was required. */
  readonly required: boolean;
  /** Why it is required, when given. */
  readonly reason?: string;
  /** Short description of the source for messages, e.g. `dir:/abs/path`, `inline`, `archive:/x.zip`. */
  readonly origin: string;
}
