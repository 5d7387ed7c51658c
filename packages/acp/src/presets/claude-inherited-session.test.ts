import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeInheritedSession } from "./claude-inherited-session.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A workspace whose `.claude/settings.json` chooses a mode, a user config dir, and its `.claude/settings.local.json` path. */
function workspace(): { cwd: string; home: string; local: string } {
  const root = mkdtempSync(join(tmpdir(), "adaptor-inherited-"));
  dirs.push(root);
  const cwd = join(root, "work");
  const home = join(root, "config");
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ permissions: { defaultMode: "plan" } }));
  writeFileSync(join(home, "settings.json"), JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }));
  return { cwd, home, local: join(cwd, ".claude", "settings.local.json") };
}

describe("claudeInheritedSession settings reads", () => {
  it("a FIFO an agent made as the workspace's settings.local.json is read as empty settings at once, never waited on", async () => {
    const { cwd, home, local } = workspace();
    execFileSync("mkfifo", [local]);
    expect(await claudeInheritedSession({ cwd, env: { CLAUDE_CONFIG_DIR: home } })).toEqual({ mode: "acceptEdits" });
  });

  it("a settings file that is a symbolic link to a regular file is followed; one to /dev/zero is not read", async () => {
    const { cwd, home, local } = workspace();
    const real = join(home, "kept-elsewhere.json");
    writeFileSync(real, JSON.stringify({ model: "sonnet" }));
    symlinkSync(real, local);
    expect(await claudeInheritedSession({ cwd, env: { CLAUDE_CONFIG_DIR: home } })).toEqual({ mode: "acceptEdits", model: null });
    rmSync(local);
    symlinkSync("/dev/zero", local);
    expect(await claudeInheritedSession({ cwd, env: { CLAUDE_CONFIG_DIR: home } })).toEqual({ mode: "acceptEdits" });
  });
});
