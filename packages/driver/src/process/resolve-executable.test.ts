import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DriverError, ErrCode } from "@adaptor/errors";
import { resolveExecutable } from "./resolve-executable.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "adaptor-resolve-"));
  await mkdir(join(dir, "bin"));
  await mkdir(join(dir, "other"));
  await writeFile(join(dir, "bin", "tool"), "#!/bin/sh\n");
  await chmod(join(dir, "bin", "tool"), 0o755);
  await writeFile(join(dir, "other", "plain"), "data\n");
  await chmod(join(dir, "other", "plain"), 0o644);
  await mkdir(join(dir, "other", "tool")); // a directory named like the tool, earlier on PATH
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("resolveExecutable", () => {
  it("rejects a bare name missing from PATH with NOT_FOUND and the exact message", async () => {
    const err = await resolveExecutable("no-such-cli-xyz", { path: join(dir, "bin") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DriverError);
    expect(err).toMatchObject({ op: "spawn", device: "no-such-cli-xyz", code: ErrCode.NotFound });
    expect((err as Error).message).toBe("[NOT_FOUND] spawn: no-such-cli-xyz (executable not found on PATH)");
  });

  it("finds a bare name on PATH, skipping a directory of that name and empty entries", async () => {
    const path = ["", join(dir, "other"), join(dir, "bin")].join(":");
    await expect(resolveExecutable("tool", { path })).resolves.toBe(join(dir, "bin", "tool"));
  });

  it("resolves a relative path against cwd", async () => {
    await expect(resolveExecutable("./bin/tool", { cwd: dir })).resolves.toBe(join(dir, "bin", "tool"));
  });

  it("rejects a missing absolute path with NOT_FOUND", async () => {
    await expect(resolveExecutable(join(dir, "bin", "gone"), { device: "claude" })).rejects.toMatchObject({
      code: ErrCode.NotFound,
      device: "claude",
      message: `[NOT_FOUND] spawn: claude (executable not found at ${join(dir, "bin", "gone")})`,
    });
  });

  it("rejects a file without execute permission with PERMISSION (path and PATH lookup)", async () => {
    await expect(resolveExecutable(join(dir, "other", "plain"))).rejects.toMatchObject({ code: ErrCode.Permission, op: "spawn" });
    await expect(resolveExecutable("plain", { path: join(dir, "other") })).rejects.toMatchObject({ code: ErrCode.Permission });
  });

  it("rejects a path naming a directory with IS_DIRECTORY", async () => {
    await expect(resolveExecutable(join(dir, "bin"))).rejects.toMatchObject({ code: ErrCode.IsDirectory });
  });

  it("rejects an empty command with INVALID", async () => {
    await expect(resolveExecutable("")).rejects.toMatchObject({ code: ErrCode.Invalid });
  });
});
