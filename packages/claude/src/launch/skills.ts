import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SkillBundle } from "@adaptor/driver";
import { stageSkillFolders } from "@adaptor/driver/kit";

/** The name of the plugin the run's skills are staged in: claude lists each skill as `adaptor:<name>`. */
export const SKILL_PLUGIN_NAME = "adaptor";

/**
 * Stages the run's skills where claude loads them, and returns the flags that make it look there.
 *
 * Where claude 2.1.332 loads skills, proved on the real binary (see test/skills.test.ts): from
 * `$CLAUDE_CONFIG_DIR/skills/<name>/SKILL.md` (the user's own), from the workspace's and every
 * `--add-dir`'s `.claude/skills/` (only with the `project` setting source, which the driver leaves
 * off unless `workspaceSettings` is set: the workspace's settings could run commands), and from a
 * plugin passed with `--plugin-dir`, under any setting sources. So each skill is copied into
 * `<root>/skills/<name>/` of a plugin named {@link SKILL_PLUGIN_NAME} inside the run's private 0700
 * folder (`<root>/.claude-plugin/plugin.json`), and `--plugin-dir <root>` is passed. Claude lists
 * the skills as `adaptor:<name>`. The user's config dir and workspace are never written; the private
 * folder is removed with the launch.
 *
 * @param root - a folder inside the run's private directory (created here).
 * @returns `["--plugin-dir", root]`, or `[]` when there are no skills.
 * @throws DriverError as `stageSkillFolders` (op `stage skill`).
 */
export async function stageSkills(root: string, skills: readonly SkillBundle[] | undefined): Promise<string[]> {
  if (!skills?.length) return [];
  await stageSkillFolders(join(root, "skills"), skills);
  await mkdir(join(root, ".claude-plugin"), { mode: 0o700 });
  await writeFile(join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name: SKILL_PLUGIN_NAME, version: "1.0.0" }), {
    mode: 0o600,
  });
  return ["--plugin-dir", root];
}
