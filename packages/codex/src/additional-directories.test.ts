import { mkdtempSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ErrFeatureUnsupported, type RunPolicy } from "@adaptor/driver";
import { ErrInvalidOption, isError } from "@adaptor/errors";
import { DIRECTORIES_WITHOUT_SANDBOX, withAdditionalDirectories } from "./additional-directories.js";
import { checkWritableRoots } from "./app-server/writable-roots.js";
import { CODEX_DESCRIPTOR } from "./descriptor.js";
import { execArgs } from "./exec/exec-run.js";
import { codexEnforcement, planPolicy, type CodexLaunchSettings } from "./policy.js";
import { readCheckpointData } from "./session/checkpoint-data.js";

const DIRS = ["/data", "/shared/out"];

const HOME = "/nonexistent-codex-home";

function plan(policy: RunPolicy | undefined, directories: readonly string[] | undefined, launch: CodexLaunchSettings = {}, home = HOME) {
  return withAdditionalDirectories(planPolicy(policy, CODEX_DESCRIPTOR, false, launch), directories, "codex", home);
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

const cleanups: string[] = [];
afterAll(() => {
  for (const dir of cleanups) rmSync(dir, { recursive: true, force: true });
});

describe("withAdditionalDirectories", () => {
  it("workspace_write: the directories are the writable roots, on both transports, and the report lists them", () => {
    const policy = { sandbox: "workspace_write" } as const;
    const planned = plan(policy, DIRS);
    expect(planned).toMatchObject({ sandbox: "workspace-write", writableRoots: DIRS });
    const args = execArgs({ runId: "r", prompt: "p" }, {}, planned, undefined);
    expect(args.join(" ")).toContain(`-c sandbox_workspace_write.writable_roots=${JSON.stringify(DIRS)}`);
    expect(codexEnforcement(policy, planned, "app-server")[0]?.detail).toBe(
      `thread/start sandbox workspace-write; writable roots besides the working directory (additionalDirectories, sandbox_workspace_write.writable_roots): ${JSON.stringify(DIRS)}`,
    );
  });

  it("the roots are normalized (no trailing slash, `.` or `..`) and every symbolic link resolved; the report names both", () => {
    const root = mkdtempSync(join(tmpdir(), "codex-dirs-"));
    cleanups.push(root);
    mkdirSync(join(root, "out"));
    symlinkSync(join(root, "out"), join(root, "link"));
    const link = join(root, "link");
    const policy = { sandbox: "workspace_write" } as const;
    const planned = plan(policy, ["/data/", "/w/../shared/./out", link, join(link, "new")]);
    expect(planned.writableRoots).toEqual(["/data", "/shared/out", join(root, "out"), join(root, "out", "new")]);
    expect(codexEnforcement(policy, planned, "app-server")[0]?.detail).toContain(
      JSON.stringify([
        "/data/ -> /data",
        "/w/../shared/./out -> /shared/out",
        `${link} -> ${join(root, "out")}`,
        `${join(link, "new")} -> ${join(root, "out", "new")}`,
      ]),
    );
  });

  it.each(["/", "//tmp/../", "/."])(
    "workspace_write: %j (the filesystem root) is refused, InvalidOptionError naming its index",
    (directory) => {
      const error = thrown(() => plan({ sandbox: "workspace_write" }, ["/data", directory]));
      expect(isError(error, ErrInvalidOption)).toBe(true);
      expect(error).toMatchObject({ field: "additionalDirectories[1]", reason: expect.stringContaining("the filesystem root") as string });
    },
  );

  it("workspace_write: a directory containing the run's Codex home (itself, an ancestor, or a link to one), or inside it, is refused", () => {
    const root = mkdtempSync(join(tmpdir(), "codex-dirs-"));
    cleanups.push(root);
    const home = join(root, "home", ".codex");
    mkdirSync(home, { recursive: true });
    symlinkSync(join(root, "home"), join(root, "to-home"));
    for (const directory of [home, join(root, "home"), root, join(root, "to-home")]) {
      const error = thrown(() => plan({ sandbox: "workspace_write" }, [directory], {}, home));
      expect(isError(error, ErrInvalidOption)).toBe(true);
      expect(error).toMatchObject({ field: "additionalDirectories[0]", reason: expect.stringContaining("the Codex home") as string });
    }
    // Inside the home (its rules, hooks), also by a link: codex obeys what is there.
    mkdirSync(join(home, "rules"));
    symlinkSync(join(home, "rules"), join(root, "to-rules"));
    // A link to a folder of the home that does not exist yet: codex would create it there.
    symlinkSync(join(home, "not-yet"), join(root, "to-not-yet"));
    for (const directory of [
      join(home, "rules"),
      join(root, "to-home", ".codex", "hooks"),
      join(root, "to-rules"),
      join(root, "to-not-yet"),
    ]) {
      const error = thrown(() => plan({ sandbox: "workspace_write" }, ["/data", directory], {}, home));
      expect(isError(error, ErrInvalidOption), directory).toBe(true);
      expect(error).toMatchObject({
        field: "additionalDirectories[1]",
        reason: expect.stringContaining("inside the Codex home") as string,
      });
    }
    expect(plan({ sandbox: "workspace_write" }, [join(root, "home-sibling")], {}, home).writableRoots).toEqual([
      join(root, "home-sibling"),
    ]);
    expect(plan({ sandbox: "read_only" }, ["/"], {}, home).readOnlyDirectories).toEqual(["/"]);
  });

  it("no directories (absent or empty): the plan as it was, roots pinned to []", () => {
    for (const directories of [undefined, []]) expect(plan({ sandbox: "workspace_write" }, directories).writableRoots).toEqual([]);
    expect(execArgs({ runId: "r", prompt: "p" }, {}, plan({ sandbox: "workspace_write" }, []), undefined).join(" ")).toContain(
      "-c sandbox_workspace_write.writable_roots=[]",
    );
  });

  it("read_only: accepted, writes not widened (no writable roots); the report says the directories are readable, not writable", () => {
    const policy = { sandbox: "read_only" } as const;
    const planned = plan(policy, DIRS);
    expect(planned.writableRoots).toBeUndefined();
    expect(planned.readOnlyDirectories).toEqual(DIRS);
    expect(execArgs({ runId: "r", prompt: "p" }, {}, planned, undefined).join(" ")).not.toContain("writable_roots");
    expect(codexEnforcement(policy, planned, "exec")[0]?.detail).toBe(
      `-s read-only; additionalDirectories readable (the read-only sandbox lets commands read every path), not writable: ${JSON.stringify(DIRS)}`,
    );
  });

  it("full access (unrestricted, or ask with no sandbox): accepted as it is, every path being writable", () => {
    expect(plan({ sandbox: "unrestricted" }, DIRS)).toEqual(plan({ sandbox: "unrestricted" }, undefined));
    expect(plan({ approvals: { permission: "ask" } }, DIRS)).toEqual(plan({ approvals: { permission: "ask" } }, undefined));
  });

  it.each<RunPolicy | undefined>([
    undefined,
    { approvals: { permission: "auto_approve" } },
    { approvals: { permission: "inherit" } },
    { webSearch: "deny" },
  ])("no sandbox in the policy (%j): FeatureUnsupportedError naming why", (policy) => {
    const error = thrown(() => plan(policy, DIRS));
    expect(isError(error, ErrFeatureUnsupported)).toBe(true);
    expect(error).toMatchObject({ driver: "codex", feature: "additionalDirectories", reason: DIRECTORIES_WITHOUT_SANDBOX });
  });

  it("workspace_write with configOverrides writable_roots too: InvalidOptionError (one of the two would be dropped)", () => {
    const launch = { configOverrides: { "sandbox_workspace_write.writable_roots": ["/other"] } };
    const error = thrown(() => plan({ sandbox: "workspace_write" }, DIRS, launch));
    expect(isError(error, ErrInvalidOption)).toBe(true);
    expect(error).toMatchObject({ field: "additionalDirectories" });
    expect(plan({ sandbox: "workspace_write" }, [], launch)).toMatchObject({ writableRoots: ["/other"], hostWritableRoots: true });
  });
});

describe("checkWritableRoots (the roots codex keeps for an app-server thread)", () => {
  it("passes when codex keeps only the plan's roots (in any order, normalized alike), or fewer, or when nothing is known", () => {
    const planned = plan({ sandbox: "workspace_write" }, DIRS);
    expect(() => checkWritableRoots(planned, [...DIRS].reverse(), "codex")).not.toThrow();
    expect(() => checkWritableRoots(planned, ["/data/"], "codex")).not.toThrow();
    expect(() => checkWritableRoots(planned, [], "codex")).not.toThrow();
    expect(() => checkWritableRoots(planned, undefined, "codex")).not.toThrow();
  });

  it("refuses a root kept from an earlier turn, naming it; with no directories the pinned [] is checked too", () => {
    const kept = thrown(() => checkWritableRoots(plan({ sandbox: "workspace_write" }, ["/data"]), ["/old", "/data"], "codex"));
    expect(isError(kept, ErrFeatureUnsupported)).toBe(true);
    expect(kept).toMatchObject({ feature: "additionalDirectories", reason: expect.stringContaining('["/old"]') as string });
    const none = thrown(() => checkWritableRoots(plan({ sandbox: "workspace_write" }, undefined), ["/old"], "codex"));
    expect(isError(none, ErrFeatureUnsupported)).toBe(true);
  });

  it("does not check another sandbox (read_only and full access write nowhere else or everywhere anyway)", () => {
    expect(() => checkWritableRoots(plan({ sandbox: "read_only" }, DIRS), ["/old"], "codex")).not.toThrow();
    expect(() => checkWritableRoots(plan({ sandbox: "unrestricted" }, DIRS), ["/old"], "codex")).not.toThrow();
  });

  it("the checkpoint data carries the roots (absolute paths only; anything else reads as none)", () => {
    expect(readCheckpointData({ lastTurnId: "t", writableRoots: ["/a", "/b"] }).writableRoots).toEqual(["/a", "/b"]);
    for (const writableRoots of [[], ["rel"], "/a", [1], null]) expect(readCheckpointData({ writableRoots }).writableRoots).toBeUndefined();
  });
});
