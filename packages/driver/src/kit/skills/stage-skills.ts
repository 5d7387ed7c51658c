import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { cp, mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { DriverError, ErrCode } from "@adaptor/errors";
import type { SkillBundle } from "../../spi/mcp-server.js";
import { hashFile } from "./hash-file.js";

/** Safe skill folder names (the SDK's runtime names satisfy it). */
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

/**
 * Copies each skill bundle to `<skillsDir>/<name>/` (created 0700), the layout CLIs load skills
 * from (`<name>/SKILL.md`). The bundles are copied, never moved or edited; symlinks are copied as
 * links.
 *
 * @param skillsDir - a folder inside the run's or process's private directory.
 * @throws DriverError (op `stage skill`, device `skill <name>`): `INVALID` for an unsafe or
 * duplicate name (names compare case-insensitively), `NOT_FOUND` for a bundle without `SKILL.md`,
 * `PERMISSION` or `INTERNAL` when the copy fails.
 */
export async function stageSkillFolders(skillsDir: string, skills: readonly SkillBundle[]): Promise<void> {
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
}

/**
 * The skills of a request as a launch-signature input: each skill's name and a sha256 over the
 * relative paths and bytes of every file in its folder. Skills are staged into a new folder every
 * run, so signatures compare names and contents, never paths. `undefined` without skills.
 */
export function skillsDigest(skills: readonly SkillBundle[] | undefined): { name: string; content: string }[] | undefined {
  return skills?.map((skill) => ({ name: skill.name, content: hashTree(skill.dir) }));
}

/** sha256 over the relative paths and bytes of every file under `dir`, in sorted order. */
function hashTree(dir: string): string {
  const hash = createHash("sha256");
  const visit = (relative: string): void => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(relative, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) {
        hash.update(path).update("\0");
        hashFile(hash, join(dir, path));
        hash.update("\0");
      }
    }
  };
  try {
    visit("");
  } catch {
    hash.update(`unreadable:${dir}`);
  }
  return hash.digest("hex");
}
