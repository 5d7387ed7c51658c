// Skills on the real claude binary (pinned 2.1.332) against the scripted Anthropic server. Issue 6
// §1/§3: a skill of each source kind is materialised, visible to the CLI (init line and the request
// the model received), the user's own skills stay untouched, and nothing staged is left after.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import type { Driver, DriverRequest, SkillBundle } from "@adaptor/driver";
import { Agent, skillArchive, skillDir, skillInline, skillKey, skillSet } from "adaptor";
import { claude } from "@adaptor/claude";

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function writeSkill(dir: string, name: string, description: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\n\nInstructions of ${name}.\n`);
  return dir;
}

/** The claude driver, recording the skill bundles each request carried. */
function recordingClaude(env: ClaudeTestEnv): { driver: Driver; bundles: SkillBundle[][] } {
  const real = claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
  const bundles: SkillBundle[][] = [];
  const driver: Driver = {
    descriptor: real.descriptor,
    validateConfig: () => real.validateConfig(),
    run: (request: DriverRequest, sink, signal) => {
      bundles.push([...(request.skills ?? [])]);
      return real.run(request, sink, signal);
    },
    close: () => real.close(),
  };
  return { driver, bundles };
}

describe("skills on the real claude binary", () => {
  it("dir, inline, archive and catalogue skills are visible to the CLI; user skills untouched; nothing left staged", async () => {
    const server: AnthropicServer = await startAnthropicServer({ rules: [] });
    const env = await claudeTestEnv({ server });
    const work = await mkdtemp(join(tmpdir(), "claude-skills-"));
    cleanups.push(
      () => server.close(),
      () => env.cleanup(),
      () => rm(work, { recursive: true, force: true }),
    );

    // The user's own skills: one in the config dir, one in the workspace. The driver writes to
    // neither. Claude loads the config dir's; the workspace's only with `workspaceSettings` (below).
    const userSkill = await writeSkill(
      join(env.configDir, "skills", "house-style"),
      "house-style",
      "USER_HOUSE_STYLE the user's own rules",
    );
    await writeSkill(join(env.workDir, ".claude", "skills", "repo-skill"), "repo-skill", "USER_REPO_SKILL the repository's skill");
    const userSkillMd = readFileSync(join(userSkill, "SKILL.md"), "utf8");

    const dir = await writeSkill(join(work, "from-dir"), "from-dir", "SRC_DIR a skill from a folder");
    const archived = await writeSkill(join(work, "pack", "from-archive"), "from-archive", "SRC_ARCHIVE a skill from a tar.gz");
    await writeFile(join(archived, "notes.md"), "extra file\n");
    const tgz = join(work, "from-archive.tgz");
    execFileSync("tar", ["-czf", tgz, "-C", join(work, "pack"), "from-archive"]);
    const catalogued = await writeSkill(join(work, "catalog", "from-catalog"), "from-catalog", "SRC_CATALOG a skill from the catalogue");

    const { driver, bundles } = recordingClaude(env);
    const agent = new Agent(driver, { skillProvider: skillSet([skillDir(catalogued)]), skills: [skillDir(dir)] });
    cleanups.push(() => agent.close());
    const result = await agent.run("which skills do you have?", {
      skills: [
        skillInline({ name: "from-inline", description: "SRC_INLINE a skill written from memory", body: "Inline instructions." }),
        // Same name as the user's own skill: claude lists ours namespaced, the user's stays as is.
        skillInline({ name: "house-style", description: "SRC_OURS_HOUSE_STYLE our rules", body: "Ours." }),
        skillArchive(tgz),
        skillKey("from-catalog"),
      ],
    });

    // The init line lists every skill claude loaded: the run's as the `adaptor` plugin's, the user's
    // own as it is; not the workspace's (its setting source is off by default).
    const init = result
      .raw()
      .stdout.split("\n")
      .filter((line) => line.includes('"subtype":"init"'))
      .map((line) => JSON.parse(line) as { skills: string[]; plugins?: { name: string; path: string }[] })[0];
    expect(init?.skills).toEqual(
      expect.arrayContaining([
        "adaptor:from-dir",
        "adaptor:from-inline",
        "adaptor:from-archive",
        "adaptor:from-catalog",
        "house-style",
        "adaptor:house-style",
      ]),
    );
    expect(init?.skills).not.toContain("repo-skill");
    // The model was offered every skill (the CLI's skill listing in the request).
    const request = JSON.stringify(server.requests[0]?.body);
    for (const marker of ["SRC_DIR", "SRC_INLINE", "SRC_ARCHIVE", "SRC_CATALOG", "SRC_OURS_HOUSE_STYLE", "USER_HOUSE_STYLE"]) {
      expect(request).toContain(marker);
    }
    expect(request).not.toContain("USER_REPO_SKILL");

    // What the SDK handed the driver, and where the driver staged it.
    expect(bundles[0]?.map((bundle) => bundle.name)).toEqual(["from-dir", "from-inline", "house-style", "from-archive", "from-catalog"]);
    const staged = init?.plugins?.find((plugin) => plugin.name === "adaptor")?.path ?? "";
    expect(staged.startsWith(env.tmpDir)).toBe(true);

    // Nothing left staged: the driver's private folder and the SDK's unpacked skills are gone, the
    // host's folders and the user's skills are untouched.
    expect(existsSync(staged)).toBe(false);
    expect(readdirSync(env.tmpDir).filter((name) => name.startsWith("adaptor-"))).toEqual([]);
    for (const bundle of bundles[0] ?? []) {
      const hostOwned = bundle.dir === dir || bundle.dir === catalogued;
      expect(existsSync(bundle.dir)).toBe(hostOwned);
    }
    expect(readdirSync(join(env.configDir, "skills"))).toEqual(["house-style"]);
    expect(readFileSync(join(userSkill, "SKILL.md"), "utf8")).toBe(userSkillMd);
    expect(readdirSync(join(env.workDir, ".claude", "skills"))).toEqual(["repo-skill"]);
  });
});
