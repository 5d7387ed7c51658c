import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectTrustPin } from "./project-trust.js";

let root: string;
let home: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "project-trust-")));
  home = join(root, "codex-home");
  await mkdir(home);
});
afterEach(() => rm(root, { recursive: true, force: true }));

const userConfig = (toml: string): Promise<void> => writeFile(join(home, "config.toml"), toml);
const trusts = (folder: string, level: string): string => `[projects.${JSON.stringify(folder)}]\ntrust_level = "${level}"\n`;

describe("projectTrustPin", () => {
  it("a folder the user's config holds no trust for is pinned untrusted, with codex's default approval policy for such a folder", async () => {
    const cwd = join(root, "work");
    await mkdir(cwd);
    await userConfig(`model = "m"\n`);
    expect(await projectTrustPin({}, home, cwd)).toEqual({
      projects: { [cwd]: { trust_level: "untrusted" } },
      approvalPolicy: "on-request",
    });
  });

  it("no config.toml at all: pinned untrusted", async () => {
    const cwd = join(root, "work");
    await mkdir(cwd);
    expect((await projectTrustPin({}, home, cwd))?.projects).toEqual({ [cwd]: { trust_level: "untrusted" } });
  });

  it("the user's own trust of the folder, or of its repository's root, is passed as it is", async () => {
    const repo = join(root, "repo");
    const sub = join(repo, "pkg");
    await mkdir(sub, { recursive: true });
    execFileSync("git", ["init", "-q", repo]);
    await userConfig(trusts(repo, "trusted"));
    expect(await projectTrustPin({}, home, sub)).toEqual({ projects: { [sub]: { trust_level: "trusted" } } });
    await userConfig(trusts(repo, "trusted") + trusts(sub, "untrusted"));
    expect(await projectTrustPin({}, home, sub)).toEqual({ projects: { [sub]: { trust_level: "untrusted" } } });
  });

  it("a linked worktree takes the trust of its main repository", async () => {
    const repo = join(root, "repo");
    const tree = join(root, "tree");
    await mkdir(repo);
    execFileSync("git", ["init", "-q", repo]);
    execFileSync("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"]);
    execFileSync("git", ["-C", repo, "worktree", "add", "-q", tree]);
    await userConfig(trusts(repo, "trusted"));
    expect((await projectTrustPin({}, home, tree))?.projects).toEqual({ [tree]: { trust_level: "trusted" } });
  });

  it("an approval policy in the user's config (or its active profile) keeps codex's own: none pinned", async () => {
    const cwd = join(root, "work");
    await mkdir(cwd);
    await userConfig(`approval_policy = "never"\n`);
    expect((await projectTrustPin({}, home, cwd))?.approvalPolicy).toBeUndefined();
    await userConfig(`profile = "p"\n[profiles.p]\napproval_policy = "never"\n`);
    expect((await projectTrustPin({}, home, cwd))?.approvalPolicy).toBeUndefined();
    await userConfig("");
    expect((await projectTrustPin({ extraArgs: ["--profile", "p"] }, home, cwd))?.approvalPolicy).toBeUndefined();
  });

  it("a projects key the host sets itself (configOverrides or -c) leaves its choice alone", async () => {
    const cwd = join(root, "work");
    await mkdir(cwd);
    expect(
      await projectTrustPin({ configOverrides: { [`projects.${JSON.stringify(cwd)}.trust_level`]: "trusted" } }, home, cwd),
    ).toBeUndefined();
    expect(await projectTrustPin({ extraArgs: ["-c", `projects={}`] }, home, cwd)).toBeUndefined();
  });
});
