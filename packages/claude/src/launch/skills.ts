import { cp, mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { DriverError, ErrCode } from "@adaptor/errors";
import type { SkillBundle } from "@adaptor/driver";

/** Safe skill folder names (the SDK's runtime names satisfy it). */
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

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
 * @throws DriverError (op `stage skill`, device `skill <name>`): `INVALID` for an unsafe or
 * duplicate name, `NOT_FOUND` for a bundle without `SKILL.md`, `PERMISSION` or `INTERNAL` when the
 * copy fails.
 */
export async function stageSkills(root: string, skills: readonly SkillBundle[] | undefined): Promise<string[]> {
  if (!skills?.length) return [];
  const skillsDir = join(root, ".claude", "skills");
  await mkdir(skillsDir, { recursive: true, mode: 0o700 });
  const names = new Set<string>();
  for (const skill of skills) {
    const fail = (code: ErrCode, cause: unknown): never => {
      throw new DriverError({ op: "stage skill", device: `skill ${skill.name}`, code, cause });
    };
    if (!SAFE_NAME.test(skill.name)) fail(ErrCode.Invalid, `unsafe skill folder name ${JSON.stringify(skill.name)}`);
    if (names.has(skill.name.toLowerCase())) fail(ErrCode.Invalid, `two skills named ${JSON.stringify(skill.name)}`);
    names.add(skill.name.toLowerCase());
    const info = await stat(join(skill.dir, "SKILL.md")).catch(() => undefined);
    if (!info?.isFile()) fail(ErrCode.NotFound, `${skill.dir} has no SKILL.md`);
    try {
      await cp(skill.dir, join(skillsDir, skill.name), { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      fail(code === "EACCES" || code === "EPERM" ? ErrCode.Permission : ErrCode.Internal, error);
    }
  }
  return [`--add-dir=${root}`];
}
