import { beforeEach, describe, expect, it } from "vitest";
import { forgetCliVersions } from "@adaptor/driver/kit";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { describeVersionFloor, runDriver } from "@adaptor/driver/testing";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { claude, MIN_CLAUDE_VERSION, PINNED_CLAUDE_VERSION } from "../src/index.js";
import { CLAUDE_PACKAGE_BINARIES, CLAUDE_VERSION_FLOOR, defaultClaudeVersion } from "../src/command.js";
import { FeatureUnsupportedError } from "@adaptor/driver";
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { driverHarness } from "./support.js";

// A claude older than MIN_CLAUDE_VERSION is refused before it is started (2.1.212 exits at once on
// a flag the driver passes). The fake CLI answers `--version` as told and plays one turn otherwise.
const line = (value: unknown): FakeCliStep => ({ write: `${JSON.stringify(value)}\n` });
const TURN: FakeCliStep[] = [
  { awaitStdinLine: true },
  line({ type: "system", subtype: "init", session_id: "s-fake", model: "fake-model", tools: [] }),
  line({ type: "result", subtype: "success", is_error: false, result: "done", session_id: "s-fake", num_turns: 1 }),
];

function fake(version: string) {
  return claude({ command: fakeCliPath, env: fakeCliEnv(TURN, { version }), killGraceMs: 300 });
}

// The fake is one binary whose answer to `--version` changes with its environment: asked anew each test.
beforeEach(() => forgetCliVersions());

describeVersionFloor("claude", {
  floor: CLAUDE_VERSION_FLOOR,
  driverPrinting: fake,
  older: [["2.1.212", "2.1.212 (Claude Code)"]],
  unreadable: "fake-cli",
  expectRan: (run) => expect([run.error, run.response?.text]).toEqual([undefined, "done"]),
});

describe("claude: a CLI as new as the driver supports", () => {
  it("the oldest supported version and a newer one than the pinned run", async () => {
    for (const version of [`${MIN_CLAUDE_VERSION} (Claude Code)`, "3.0.0 (Claude Code)"]) {
      forgetCliVersions();
      const driver = fake(version);
      try {
        const run = await runDriver(driver, { prompt: "hi" });
        expect([run.error, run.response?.text]).toEqual([undefined, "done"]);
      } finally {
        await driver.close();
      }
    }
  });
});

describe("the pinned claude binary passes the version floor", () => {
  it("runs, with no version warning", async () => {
    const h = await driverHarness();
    try {
      const run = await runDriver(h.driver, { prompt: "hello" });
      expect(run.error).toBeUndefined();
      expect(run.response?.failure).toBeUndefined();
      const data = run.recording.events.flatMap(({ event }) => (event.type === "notice" && event.kind === "warning" ? [event.data] : []));
      expect(data).not.toContainEqual(expect.objectContaining({ check: "version" }));
      expect(h.server.requests.length).toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  });
});

describe("the default claude binary's version is its package's", () => {
  it("read from @anthropic-ai/claude-code's package.json (no --version process): the pinned version", () => {
    expect(defaultClaudeVersion()).toBe(PINNED_CLAUDE_VERSION);
  });
});

describe("claude: a pre-warm whose CLI never answers initialize", () => {
  it("ends after stallTimeoutMs with the stall's TIMEOUT, the process ended, not when the host closes the driver", async () => {
    const steps: FakeCliStep[] = [{ awaitStdinLine: true }, { hang: true }];
    const driver = claude({
      command: fakeCliPath,
      env: fakeCliEnv(steps, { version: `${PINNED_CLAUDE_VERSION} (Claude Code)` }),
      killGraceMs: 300,
      stallTimeoutMs: 1500,
    });
    // Far beyond the stall: a pre-warm still waiting then ignored stallTimeoutMs.
    const guard = AbortSignal.timeout(30_000);
    try {
      const error = await driver.prewarm({}, guard).then(
        () => undefined,
        (e: unknown) => e,
      );
      const timeout = findError(error, DriverError);
      expect([timeout?.code, timeout?.op, guard.aborted]).toEqual([ErrCode.Timeout, "stall", false]);
    } finally {
      await driver.close();
    }
  });
});

describe("claude: a `command` that is a claude package's binary in another install", () => {
  it("takes that package's version, starting nothing: an older package is refused before launch, its binary never run", async () => {
    const dir = await mkdtemp(join(tmpdir(), "adaptor-claude-package-"));
    try {
      // The platform package's layout; the binary says it is new, its package says 2.1.212.
      const pkg = CLAUDE_PACKAGE_BINARIES[1]!;
      const root = join(dir, "node_modules", ...pkg.name.split("/"));
      const bin = join(root, pkg.binary);
      const calls = join(dir, "calls");
      await mkdir(root, { recursive: true });
      await writeFile(join(root, "package.json"), JSON.stringify({ name: pkg.name, version: "2.1.212" }));
      await writeFile(bin, `#!/bin/sh\necho x >> "${calls}"\necho "2.1.332 (Claude Code)"\n`);
      await chmod(bin, 0o755);
      // Named through a link, as a package manager's `.bin` or a global install's link on PATH does.
      await mkdir(join(dir, "bin"));
      await symlink(bin, join(dir, "bin", "claude"));
      const driver = claude({ command: join(dir, "bin", "claude"), killGraceMs: 300 });
      try {
        const run = await runDriver(driver, { prompt: "hi" });
        const error = findError(run.error, FeatureUnsupportedError);
        expect([error?.feature, error?.reason.startsWith(`claude 2.1.212 is older than ${MIN_CLAUDE_VERSION}`)]).toEqual([
          "cliVersion",
          true,
        ]);
        expect(run.recording.ofType("process").filter((p) => p.kind === "spawn")).toEqual([]);
        expect(await readFile(calls, "utf8").catch(() => "")).toBe("");
      } finally {
        await driver.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
