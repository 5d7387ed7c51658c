import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SkillBundle } from "@adaptor/driver";
import { stageSkillFolders } from "@adaptor/driver/kit";

/** Skills staged for one `codex app-server` process. */
export interface StagedCodexSkills {
  /** The folder holding `<name>/SKILL.md` of every skill: the extra root announced to codex. */
  readonly root: string;
  /** Removes the staged copies; idempotent, never rejects. */
  remove(): Promise<void>;
}

/**
 * Stages a run's skills for a `codex app-server` process. Where codex 0.171.0 loads skills, proved
 * on the real binary (test/codex/codex-skills.test.ts): `$CODEX_HOME/skills/<name>/SKILL.md` (the
 * user's), the repository's own skill folders, and every extra root set with the app-server request
 * `skills/extraRoots/set`. The first two belong to the user, so each skill is copied into
 * `<private>/skills/<name>/` of a new 0700 folder under the system temp directory, which the session
 * announces as its one extra root right after `initialize`; codex then lists each skill's name,
 * description and `SKILL.md` path to the model. The folder lives as long as the process (a parked
 * process serves later turns with the same skills: they are part of its launch signature).
 *
 * @returns `undefined` when there are no skills.
 * @throws DriverError as `stageSkillFolders` (op `stage skill`); nothing is left behind then.
 */
export async function stageCodexSkills(skills: readonly SkillBundle[] | undefined): Promise<StagedCodexSkills | undefined> {
  if (!skills?.length) return undefined;
  const dir = await mkdtemp(join(tmpdir(), "adaptor-codex-skills-"));
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true }).catch(() => undefined);
  const root = join(dir, "skills");
  try {
    await stageSkillFolders(root, skills);
  } catch (error) {
    await remove();
    throw error;
  }
  return { root, remove };
}
