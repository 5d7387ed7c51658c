import { FeatureUnsupportedError } from "@adaptor/driver";
import { materializeSkills, resolveSkills } from "@adaptor/skill";
import type { Preparation } from "./preparation.js";

/**
 * Pre-invocation step: resolves the run's `skills` (agent skills, then call skills)
 * through `skillProvider` (whose required skills join every run), checks keys, sources and
 * conflicts, refuses them when the driver cannot deliver skills (`capabilities.skills` not true),
 * stages inline and archive skills in a private folder (removed after the run through
 * `prep.onCleanup`) and hands the driver one `SkillBundle` per skill. Nothing to do without skills
 * and provider, or when they resolve to no skill.
 *
 * @throws AdaptorError matching `ErrSkillKeyMissing`, `ErrSkillSourceMissing`, `ErrSkillNotFound`;
 * `SkillKeyConflictError`; `FeatureUnsupportedError` (feature `"skills"`); `SkillMaterializationError` (cause kept); the
 * driver is never started.
 */
export async function prepareSkills(prep: Preparation): Promise<void> {
  const { skills = [], skillProvider } = prep.options;
  if (skills.length === 0 && !skillProvider) return;
  const resolved = await resolveSkills(skills, { provider: skillProvider, signal: prep.signal });
  if (resolved.length === 0) return;
  const { type, capabilities } = prep.driver.descriptor;
  if (capabilities.skills !== true) {
    const names = resolved.map((skill) => JSON.stringify(skill.runtimeName)).join(", ");
    throw new FeatureUnsupportedError(type, "skills", `its agent cannot be handed skills (${names})`);
  }
  const staged = await materializeSkills(resolved, { signal: prep.signal });
  prep.onCleanup(() => staged.cleanup());
  prep.request = { ...prep.request, skills: staged.skills.map(({ name, dir }) => ({ name, dir })) };
}
