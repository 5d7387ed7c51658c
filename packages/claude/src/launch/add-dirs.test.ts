import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { DriverRequest } from "@adaptor/driver";
import { ErrInvalidOption, isError } from "@adaptor/errors";
import { prepareLaunch } from "./launch.js";

const root = mkdtempSync(join(tmpdir(), "claude-add-dirs-"));
const home = join(root, "home", ".claude");
mkdirSync(home, { recursive: true });
mkdirSync(join(root, "data"));
symlinkSync(join(root, "home"), join(root, "to-home"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const config = { configDir: home };

async function launched(directories: readonly string[], sandbox?: "read_only" | "workspace_write" | "unrestricted"): Promise<unknown> {
  const request: DriverRequest = {
    runId: "r",
    prompt: "p",
    additionalDirectories: directories,
    ...(sandbox ? { policy: { sandbox } } : {}),
  };
  try {
    const launch = await prepareLaunch(config, request);
    await launch.cleanup();
    return launch.args.filter((arg) => arg.startsWith("--add-dir="));
  } catch (error) {
    return error;
  }
}

describe("--add-dir and the CLI's own home", () => {
  it.each([
    ["/"],
    ["//tmp/../"],
    [home],
    [join(root, "home")],
    [join(root, "to-home")],
    [root],
    [join(home, "hooks")],
    [join(root, "to-home", ".claude", "inner")],
  ])(
    "%s (the filesystem root, a directory holding the CLI home, or one inside it) is refused before launch, naming its index",
    async (directory) => {
      for (const sandbox of [undefined, "workspace_write"] as const) {
        const error = await launched([join(root, "data"), directory], sandbox);
        expect(isError(error, ErrInvalidOption)).toBe(true);
        expect(error).toMatchObject({ field: "additionalDirectories[1]" });
      }
    },
  );

  it("another directory, and any directory under read_only or unrestricted, are passed as given", async () => {
    expect(await launched([join(root, "data"), join(root, "home", "other")])).toEqual([
      `--add-dir=${join(root, "data")}`,
      `--add-dir=${join(root, "home", "other")}`,
    ]);
    expect(await launched([join(home, "hooks")], "read_only")).toEqual([`--add-dir=${join(home, "hooks")}`]);
    expect(await launched(["/"], "read_only")).toEqual(["--add-dir=/"]);
    expect(await launched([home], "unrestricted")).toEqual([`--add-dir=${home}`]);
  });
});
