import type { Skill } from "../skill/skill.js";

/**
 * Resolves catalogue keys (`skillKey(...)`) into concrete skills before each run.
 * Hosts implement it over their own store, or use {@link skillSet}.
 */
export interface SkillProvider {
  /**
   * The skills for `keys` (trimmed, non-empty, deduplicated), plus any skills the provider marks
   * required. Keys it does not know are simply left out; the SDK then fails the run with
   * `ErrSkillNotFound`. A rejection fails the run before launch, its error kept as `cause`.
   */
  getSkills(keys: readonly string[], signal: AbortSignal): Promise<readonly Skill[]> | readonly Skill[];
}

/** A {@link SkillProvider} that can also list everything it offers. */
export interface SkillCatalog extends SkillProvider {
  /** Every skill of the catalogue, ordered by key. */
  catalogue(signal?: AbortSignal): Promise<readonly Skill[]> | readonly Skill[];
}
