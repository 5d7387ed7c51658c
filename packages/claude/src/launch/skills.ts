import { join } from "node:path";
import type { SkillBundle } from "@adaptor/driver";
import { stageSkillFolders } from "@adaptor/driver/kit";

/**
 * Stages the run's skills where claude loads them, and returns the flag that makes it look there.
 *
 * Where claude 2.1.332 loads skills, proved on the real binary (see test/skills.test.ts): from
 * `$CLAUDE_CONFIG_DIR/skills/<name>/SKILL.md`, from `<cwd>/.claude/skills/<name>/SKILL.md`, and from
 * `<dir>/.claude/skills/<name>/SKILL.md` of every `--add-dir <dir>`. The first two belong to the
 * user (their own skills, their repository), so the driver uses the third: each skill is copied
 * into `<root>/.claude/skills/<name>/` inside the run's private 0700 folder, and `--add-dir=<root>`
 * is passed (the `=` form, so the variadic flag swallows nothing after it). The user's config dir
 * and workspace are never written; the private folder is removed with the launch. When a user skill
 * has the same name, claude lists ours as `<basename of root>:<name>`, hence `root` should end in
 * `adaptor`.
 *
 * @param root - a folder inside the run's private directory (created here).
 * @returns `["--add-dir=<root>"]`, or `[]` when there are no skills.
 * @throws DriverError as `stageSkillFolders` (op `stage skill`).
 */
export async function stageSkills(root: string, skills: readonly SkillBundle[] | undefined): Promise<string[]> {
  if (!skills?.length) return [];
  await stageSkillFolders(join(root, ".claude", "skills"), skills);
  return [`--add-dir=${root}`];
}
