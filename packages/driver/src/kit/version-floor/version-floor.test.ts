import { chmod, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FeatureUnsupportedError } from "../../errors/feature-unsupported-error.js";
import { createRecordingSink } from "../../testing/recording-sink.js";
import { parseVersion } from "../inspect/inspect-cli.js";
import { cliVersion, forgetCliVersions } from "./cli-version.js";
import { checkVersionFloor, compareVersions, type VersionFloor } from "./version-floor.js";

const FLOOR: VersionFloor = { driver: "codex", cli: "codex", minimum: "0.169.1", pinned: "0.171.0" };

describe("compareVersions", () => {
  it("orders by major, minor, patch as numbers; a prerelease is older than its release", () => {
    expect(Math.sign(compareVersions("0.169.1", "0.171.0"))).toBe(-1);
    expect(Math.sign(compareVersions("0.171.0", "0.169.1"))).toBe(1);
    expect(Math.sign(compareVersions("2.1.270", "2.1.99"))).toBe(1);
    expect(compareVersions("1.2.3", "1.2.3")).toBe(0);
    expect(Math.sign(compareVersions("0.169.1-alpha.1", "0.169.1"))).toBe(-1);
    expect(() => compareVersions("x", "1.2.3")).toThrow(TypeError);
  });
});

describe("checkVersionFloor", () => {
  it("refuses an older version with FeatureUnsupportedError cliVersion; the floor itself and newer ones pass", () => {
    const recording = createRecordingSink();
    expect(() => checkVersionFloor(FLOOR, "0.166.0", recording.sink)).toThrow(FeatureUnsupportedError);
    for (const version of ["0.169.1", "0.171.0", "0.180.0", "1.0.0"]) checkVersionFloor(FLOOR, version, recording.sink);
    expect(recording.events).toEqual([]);
  });

  it("lets an unreadable version run, with a warning notice", () => {
    const recording = createRecordingSink();
    checkVersionFloor(FLOOR, undefined, recording.sink, "codex dev build");
    expect(recording.events.map(({ event }) => event)).toEqual([
      {
        type: "notice",
        kind: "warning",
        message: "codex printed no version the driver can read; running without checking it is 0.169.1 or newer",
        data: { check: "version", minimum: "0.169.1", output: "codex dev build" },
      },
    ]);
  });
});

describe("cliVersion", () => {
  it("asks a binary once per path, size and modification time", async () => {
    forgetCliVersions();
    const dir = await mkdtemp(join(tmpdir(), "adaptor-cli-version-"));
    try {
      const bin = join(dir, "cli");
      const calls = join(dir, "calls");
      await writeFile(bin, `#!/bin/sh\necho x >> "${calls}"\necho "cli 1.2.3"\n`);
      await chmod(bin, 0o755);
      const probe = { command: bin, args: ["--version"], env: { PATH: process.env["PATH"] }, device: "cli" };
      const signal = new AbortController().signal;
      expect(await cliVersion(probe, signal)).toEqual({ version: "1.2.3", output: "cli 1.2.3" });
      expect(await cliVersion(probe, signal)).toEqual({ version: "1.2.3", output: "cli 1.2.3" });
      expect((await readFile(calls, "utf8")).split("\n").filter(Boolean)).toHaveLength(1);
      // Replaced in place (another modification time): asked again.
      await utimes(bin, new Date(), new Date(Date.now() + 60_000));
      await cliVersion(probe, signal);
      expect((await readFile(calls, "utf8")).split("\n").filter(Boolean)).toHaveLength(2);
    } finally {
      forgetCliVersions();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("asks a version manager's shim once per working directory: each project's pin is its own answer", async () => {
    forgetCliVersions();
    const dir = await mkdtemp(join(tmpdir(), "adaptor-cli-version-"));
    try {
      const shim = join(dir, "cli");
      await writeFile(shim, '#!/bin/sh\necho "cli $(cat .pinned)"\n');
      await chmod(shim, 0o755);
      const old = join(dir, "old");
      const current = join(dir, "current");
      for (const [project, version] of [
        [old, "0.124.0"],
        [current, "0.171.0"],
      ] as const) {
        await mkdir(project);
        await writeFile(join(project, ".pinned"), version);
      }
      const probe = (cwd: string) => ({ command: shim, args: ["--version"], env: { PATH: process.env["PATH"] }, device: "cli", cwd });
      const signal = new AbortController().signal;
      expect((await cliVersion(probe(current), signal)).version).toBe("0.171.0");
      expect((await cliVersion(probe(old), signal)).version).toBe("0.124.0");
      expect((await cliVersion(probe(current), signal)).version).toBe("0.171.0");
    } finally {
      forgetCliVersions();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads a version printed on stderr only", async () => {
    forgetCliVersions();
    const dir = await mkdtemp(join(tmpdir(), "adaptor-cli-version-"));
    try {
      const bin = join(dir, "cli");
      await writeFile(bin, '#!/bin/sh\necho "cli 0.124.0" >&2\n');
      await chmod(bin, 0o755);
      const probe = { command: bin, args: ["--version"], env: { PATH: process.env["PATH"] }, device: "cli" };
      expect((await cliVersion(probe, new AbortController().signal)).version).toBe("0.124.0");
    } finally {
      forgetCliVersions();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("parseVersion", () => {
  it("takes the last line holding a version (a wrapper's banner comes first), never a piece of a longer dotted number", () => {
    expect(parseVersion("codex-cli 0.171.0\n")).toBe("0.171.0");
    expect(parseVersion("2.1.332 (Claude Code)")).toBe("2.1.332");
    expect(parseVersion("corp-proxy: using gateway 10.20.30.40\ncodex-cli 0.124.0\n")).toBe("0.124.0");
    expect(parseVersion("codex wrapper 2.0.1 by infra team\ncodex-cli 0.124.0")).toBe("0.124.0");
    expect(parseVersion("Running node v20.19.0\n2.1.212 (Claude Code)")).toBe("2.1.212");
    expect(parseVersion("codex-cli v0.124.0")).toBe("0.124.0");
    expect(parseVersion("codex-cli 0.169.1-alpha.3")).toBe("0.169.1-alpha.3");
    expect(parseVersion("codex-cli 0.171.0+build5")).toBe("0.171.0");
    expect(parseVersion("gateway 10.20.30.40")).toBeUndefined();
    expect(parseVersion("something else")).toBeUndefined();
  });
});
