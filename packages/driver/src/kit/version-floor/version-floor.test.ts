import { chmod, mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DriverError, ErrCode } from "@adaptor/errors";
import { FeatureUnsupportedError } from "../../errors/feature-unsupported-error.js";
import { createRecordingSink } from "../../testing/recording-sink.js";
import { parseVersion } from "../inspect/inspect-cli.js";
import { processGone } from "../process-gone/process-gone.js";
import { cliVersion, forgetCliVersions, probeCliVersion, VERSION_PROBE_TIMEOUT_MS, type CliVersionProbe } from "./cli-version.js";
import { confirmStartedVersion } from "./confirm-started-version.js";
import { checkVersionFloor, compareVersions, requireCliVersion, type CliVersionCheck, type VersionFloor } from "./version-floor.js";

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

describe("cliVersion: the binary of an npm package the probe names", () => {
  /** A package folder `name@version` holding `binary`, a script that counts its runs and prints `printed`. */
  async function packaged(dir: string, name: string, version: string, binary: string, printed: string) {
    const root = join(dir, "node_modules", ...name.split("/"));
    const bin = join(root, ...binary.split("/"));
    const calls = join(dir, "calls");
    await mkdir(join(bin, ".."), { recursive: true });
    await writeFile(join(root, "package.json"), JSON.stringify({ name, version }));
    await writeFile(bin, `#!/bin/sh\necho x >> "${calls}"\necho "cli ${printed}"\n`);
    await chmod(bin, 0o755);
    return { bin, asked: async () => (await readFile(calls, "utf8").catch(() => "")).split("\n").filter(Boolean).length };
  }

  it("reads the version from the package's manifest, through a link to the binary too, and starts nothing", async () => {
    forgetCliVersions();
    const dir = await mkdtemp(join(tmpdir(), "adaptor-cli-version-"));
    try {
      const { bin, asked } = await packaged(dir, "@acme/cli-linux-x64", "1.4.0-linux-x64", "vendor/bin/cli", "9.9.9");
      const packages = [{ name: "@acme/cli-linux-x64", binary: "vendor/bin/cli", versionSuffix: "-linux-x64" }];
      const signal = new AbortController().signal;
      const probe = { command: bin, args: ["--version"], env: { PATH: process.env["PATH"] }, device: "cli", packages };
      expect(await probeCliVersion(probe, signal)).toMatchObject({ version: "1.4.0", output: "1.4.0", asked: false });
      // As a package manager's `.bin` link or a global install's link on PATH names it.
      await mkdir(join(dir, "bin"));
      await symlink(bin, join(dir, "bin", "cli"));
      const onPath = { ...probe, command: "cli", env: { PATH: join(dir, "bin") } };
      expect(await probeCliVersion(onPath, signal)).toMatchObject({ version: "1.4.0", asked: false });
      expect(await asked()).toBe(0);
    } finally {
      forgetCliVersions();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("asks the binary when its package is another, it sits elsewhere in the package, or it is smaller than the package's binary", async () => {
    forgetCliVersions();
    const dir = await mkdtemp(join(tmpdir(), "adaptor-cli-version-"));
    try {
      const { bin, asked } = await packaged(dir, "@acme/other", "1.4.0", "bin/cli", "2.0.0");
      const signal = new AbortController().signal;
      const probe = { command: bin, args: ["--version"], env: { PATH: process.env["PATH"] }, device: "cli" };
      const cases = [
        [{ name: "@acme/cli", binary: "bin/cli" }],
        [{ name: "@acme/other", binary: "vendor/bin/cli" }],
        // A placeholder the package's install step replaces with the real binary.
        [{ name: "@acme/other", binary: "bin/cli", minBytes: 1024 * 1024 }],
      ];
      for (const packages of cases) {
        forgetCliVersions();
        expect(await probeCliVersion({ ...probe, packages }, signal)).toMatchObject({ version: "2.0.0", asked: true });
      }
      expect(await asked()).toBe(3);
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

/** A version manager's shim (asdf, mise, volta): the file never changes, `version` says which CLI it runs; each `--version` is counted. */
async function shim(
  dir: string,
  version: string,
): Promise<{ readonly probe: CliVersionProbe; use(version: string): Promise<void>; asked(): Promise<number> }> {
  const bin = join(dir, "cli");
  const chosen = join(dir, "version");
  const calls = join(dir, "calls");
  await writeFile(bin, `#!/bin/sh\necho x >> "${calls}"\necho "cli $(cat "${chosen}")"\n`);
  await chmod(bin, 0o755);
  await writeFile(chosen, version);
  return {
    probe: { command: bin, args: ["--version"], env: { PATH: process.env["PATH"] }, device: "cli" },
    use: (next) => writeFile(chosen, next),
    asked: async () => (await readFile(calls, "utf8").catch(() => "")).split("\n").filter(Boolean).length,
  };
}

describe("requireCliVersion behind a version manager's shim", () => {
  it("a refusal is not remembered: the install the user fixed behind the same shim runs at once", async () => {
    forgetCliVersions();
    const dir = await mkdtemp(join(tmpdir(), "adaptor-cli-version-"));
    try {
      const cli = await shim(dir, "0.166.0");
      const signal = new AbortController().signal;
      const refused = await requireCliVersion(FLOOR, cli.probe, createRecordingSink().sink, signal).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(FeatureUnsupportedError);
      await cli.use("0.171.0");
      const check = await requireCliVersion(FLOOR, cli.probe, createRecordingSink().sink, signal);
      expect([check.version, check.confirmable, await cli.asked()]).toEqual(["0.171.0", true, 2]);
    } finally {
      forgetCliVersions();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a remembered answer the started CLI contradicts is forgotten, and an older version it names is refused", async () => {
    forgetCliVersions();
    const dir = await mkdtemp(join(tmpdir(), "adaptor-cli-version-"));
    try {
      const cli = await shim(dir, "0.170.0");
      const signal = new AbortController().signal;
      const sink = createRecordingSink().sink;
      (await requireCliVersion(FLOOR, cli.probe, sink, signal)).confirm("0.170.0");
      // The same CLI: remembered, not asked again, and its own report agrees.
      const again = await requireCliVersion(FLOOR, cli.probe, sink, signal);
      again.confirm("0.170.0");
      expect(await cli.asked()).toBe(1);
      // The user switches to 0.166.0: the remembered answer still says 0.170.0; the started CLI does not.
      await cli.use("0.166.0");
      const stale = await requireCliVersion(FLOOR, cli.probe, sink, signal);
      expect([stale.version, await cli.asked()]).toEqual(["0.170.0", 1]);
      const refused = (() => {
        try {
          stale.confirm("0.166.0");
          return undefined;
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toBeInstanceOf(FeatureUnsupportedError);
      expect((refused as FeatureUnsupportedError).reason).toMatch(/^codex 0\.166\.0 is older than 0\.169\.1/);
      // Forgotten: the next run asks again, and is refused before anything starts.
      await expect(requireCliVersion(FLOOR, cli.probe, sink, signal)).rejects.toBeInstanceOf(FeatureUnsupportedError);
      expect(await cli.asked()).toBe(2);
      // A report naming no version changes nothing.
      await cli.use("0.171.0");
      const fixed = await requireCliVersion(FLOOR, cli.probe, sink, signal);
      fixed.confirm(undefined);
      await requireCliVersion(FLOOR, cli.probe, sink, signal);
      expect(await cli.asked()).toBe(3);
    } finally {
      forgetCliVersions();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("requireCliVersion: a CLI whose --version prints no version", () => {
  it("is not confirmable: it runs unchecked with the warning, its start not held for a version it may never name", async () => {
    forgetCliVersions();
    const dir = await mkdtemp(join(tmpdir(), "adaptor-cli-version-"));
    try {
      const cli = await shim(dir, "dev-build");
      const recording = createRecordingSink();
      const check = await requireCliVersion(FLOOR, cli.probe, recording.sink, new AbortController().signal);
      expect([check.version, check.confirmable]).toEqual([undefined, false]);
      expect(recording.events.map(({ event }) => (event.type === "notice" ? event.data : undefined))).toEqual([
        { check: "version", minimum: "0.169.1", output: "cli dev-build" },
      ]);
      // Remembered like any answer: not asked again.
      await requireCliVersion(FLOOR, cli.probe, recording.sink, new AbortController().signal);
      expect(await cli.asked()).toBe(1);
    } finally {
      forgetCliVersions();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("confirmStartedVersion", () => {
  const check = (confirmable: boolean): CliVersionCheck => ({
    version: "0.171.0",
    confirmable,
    confirm: (reported) => {
      if (reported === "0.166.0") throw new FeatureUnsupportedError("codex", "cliVersion", "codex 0.166.0 is older than 0.169.1");
    },
  });

  it("nothing to confirm: the CLI is not asked", async () => {
    let asked = 0;
    await confirmStartedVersion(
      check(false),
      () => Promise.resolve(String(++asked)),
      () => Promise.reject(new Error("not ended")),
    );
    expect(asked).toBe(0);
  });

  it("an older reported version is refused, the CLI ended first", async () => {
    const events: string[] = [];
    const refused = await confirmStartedVersion(
      check(true),
      () => Promise.resolve("0.166.0"),
      () => {
        events.push("closed");
        return Promise.resolve();
      },
    ).catch((error: unknown) => error);
    expect([refused instanceof FeatureUnsupportedError, events]).toEqual([true, ["closed"]]);
  });

  it("a CLI that ended before it answered reported no version: resolves, the CLI left for the turn to read its exit", async () => {
    const events: string[] = [];
    const disconnected = new DriverError({ code: ErrCode.DeviceDisconnected, op: "initialize", device: "codex", cause: "exited" });
    await confirmStartedVersion(
      check(true),
      () => Promise.reject(disconnected),
      () => {
        events.push("closed");
        return Promise.resolve();
      },
    );
    expect(events).toEqual([]);
  });

  it("any other failure (an abort, a stall) ends the CLI and is rethrown", async () => {
    const events: string[] = [];
    const stall = new DriverError({ code: ErrCode.Timeout, op: "stall", device: "codex", cause: "no output" });
    const failed = await confirmStartedVersion(
      check(true),
      () => Promise.reject(stall),
      () => {
        events.push("closed");
        return Promise.resolve();
      },
    ).catch((error: unknown) => error);
    expect([failed, events]).toEqual([stall, ["closed"]]);
  });
});

/** A CLI whose `--version` writes its pid to `pid`, then waits until `release` exists (or forever). */
async function stuckCli(dir: string): Promise<{ readonly probe: CliVersionProbe; pid(): Promise<number>; release(): Promise<void> }> {
  const bin = join(dir, "cli");
  const pidFile = join(dir, "pid");
  const release = join(dir, "release");
  await writeFile(bin, `#!/bin/sh\necho $$ > "${pidFile}"\nwhile [ ! -e "${release}" ]; do sleep 0.1; done\necho "cli 0.171.0"\n`);
  await chmod(bin, 0o755);
  return {
    probe: { command: bin, args: ["--version"], env: { PATH: process.env["PATH"] }, device: "cli" },
    pid: async () => {
      for (;;) {
        const text = await readFile(pidFile, "utf8").catch(() => "");
        if (text.trim() !== "") return Number(text.trim());
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    release: () => writeFile(release, ""),
  };
}

const alive = (pid: number): boolean => !processGone(pid);

describe("cliVersion: a probe that does not answer", () => {
  it("an abort rejects with its reason at once (not at the probe's own deadline), the probe's process ended", async () => {
    forgetCliVersions();
    const dir = await mkdtemp(join(tmpdir(), "adaptor-cli-version-"));
    try {
      const cli = await stuckCli(dir);
      const controller = new AbortController();
      const asked = cliVersion(cli.probe, controller.signal);
      asked.catch(() => undefined);
      const pid = await cli.pid();
      const reason = new Error("host abort");
      const started = Date.now();
      controller.abort(reason);
      await expect(asked).rejects.toBe(reason);
      // Well inside the probe's own 10 s deadline, which it waited for before.
      expect(Date.now() - started).toBeLessThan(VERSION_PROBE_TIMEOUT_MS / 2);
      expect(alive(pid)).toBe(false);
    } finally {
      forgetCliVersions();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("no answer within its deadline reads as no version: the run goes on with the warning notice, nothing remembered", async () => {
    forgetCliVersions();
    const dir = await mkdtemp(join(tmpdir(), "adaptor-cli-version-"));
    try {
      const cli = await stuckCli(dir);
      const recording = createRecordingSink();
      const check = await requireCliVersion(FLOOR, cli.probe, recording.sink, new AbortController().signal);
      expect([check.version, check.confirmable]).toEqual([undefined, false]);
      expect(recording.events.map(({ event }) => event)).toEqual([
        {
          type: "notice",
          kind: "warning",
          message: "codex printed no version the driver can read; running without checking it is 0.169.1 or newer",
          data: { check: "version", minimum: "0.169.1", output: `(no answer within ${VERSION_PROBE_TIMEOUT_MS} ms)` },
        },
      ]);
      expect(alive(await cli.pid())).toBe(false);
      // Not remembered: once it answers, that answer counts.
      await cli.release();
      expect((await cliVersion(cli.probe, new AbortController().signal)).version).toBe("0.171.0");
    } finally {
      forgetCliVersions();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
