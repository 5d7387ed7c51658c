import { beforeEach, describe, expect, it } from "vitest";
import { forgetCliVersions } from "@adaptor/driver/kit";
import { FeatureUnsupportedError } from "@adaptor/driver";
import { describeVersionFloor, runDriver } from "@adaptor/driver/testing";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { codex, MIN_CODEX_VERSION, PINNED_CODEX_VERSION } from "../src/index.js";
import { CODEX_PACKAGE_BINARIES, CODEX_VERSION_FLOOR, defaultCodexCommand, defaultCodexVersion } from "../src/command.js";
import { codexHarness, fakeLine } from "./support.js";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

// A codex older than MIN_CODEX_VERSION broke the driver's promises (it marked the workspace
// trusted at thread/start, ran MCP tools under ask without asking): it is refused before any process
// of the run starts. The fake CLI answers `--version` as given and plays an app-server that echoes
// what it reads.

/**
 * The fake app-server: answers `initialize` (naming codex `version` in its user agent), echoes the
 * next two lines it reads (`initialized`, `thread/start`) and exits 1.
 */
function appServer(version = "0.171.0"): FakeCliStep[] {
  return [
    { awaitStdinLine: true }, // initialize
    fakeLine({
      id: 1,
      result: {
        userAgent: `adaptor/${version} (Debian 12.0.0; x86_64) xterm (adaptor; 0.1.0)`,
        codexHome: "/x",
        platformFamily: "unix",
        platformOs: "linux",
      },
    }),
    { echoStdinLine: true }, // initialized
    { echoStdinLine: true }, // thread/start
    { exit: 1 },
  ];
}

/** The methods of the JSON-RPC messages the fake read and echoed back. */
function echoedMethods(stdout: readonly string[]): string[] {
  return stdout
    .map((text) => JSON.parse(text) as { type?: string; line?: { method?: string } })
    .filter((e) => e.type === "echo")
    .map((e) => e.line?.method ?? "");
}

// The fake is one binary whose answer to `--version` changes with its environment: asked anew each test.
beforeEach(() => forgetCliVersions());

describeVersionFloor("codex app-server", {
  floor: CODEX_VERSION_FLOOR,
  driverPrinting: (version) => codex({ command: fakeCliPath, env: fakeCliEnv(appServer(), { version }), killGraceMs: 300 }),
  older: [
    ["0.160.0", "codex-cli 0.160.0"],
    ["0.147.0", "codex-cli 0.147.0"],
  ],
  unreadable: "something else",
  expectRan: (run) => {
    const stdout = run.recording.ofType("process").flatMap((p) => (p.kind === "stdout" ? [p.text ?? ""] : []));
    expect(echoedMethods(stdout)).toContain("thread/start");
  },
});

describe("codex app-server: a codex newer than the pinned one", () => {
  it("a newer codex than the pinned one is not refused: the thread starts", async () => {
    const driver = codex({ command: fakeCliPath, env: fakeCliEnv(appServer(), { version: "codex-cli 0.999.0" }), killGraceMs: 300 });
    try {
      const run = await runDriver(driver, { prompt: "hi" });
      expect(findError(run.error, FeatureUnsupportedError)).toBeUndefined();
      const stdout = run.recording.ofType("process").flatMap((p) => (p.kind === "stdout" ? [p.text ?? ""] : []));
      expect(echoedMethods(stdout)).toContain("thread/start");
    } finally {
      await driver.close();
    }
  });
});

describe("codex exec: a codex older than the driver supports", () => {
  it("is refused with FeatureUnsupportedError cliVersion before codex exec is started", async () => {
    const steps: FakeCliStep[] = [fakeLine({ type: "thread.started", thread_id: "t-exec" }), { exit: 0 }];
    const driver = codex({
      command: fakeCliPath,
      transport: "exec",
      killGraceMs: 300,
      env: fakeCliEnv(steps, { version: "codex-cli 0.124.0" }),
    });
    try {
      const run = await runDriver(driver, { prompt: "hi" });
      const error = findError(run.error, FeatureUnsupportedError);
      expect([error?.feature, error?.reason.startsWith(`codex 0.124.0 is older than ${MIN_CODEX_VERSION}`)]).toEqual(["cliVersion", true]);
      expect(run.recording.ofType("process").filter((p) => p.kind === "spawn")).toEqual([]);
    } finally {
      await driver.close();
    }
  });
});

describe("the pinned codex binary passes the version floor", () => {
  for (const transport of ["app-server", "exec"] as const) {
    it(`${transport}: runs, with no version warning`, async () => {
      const h = await codexHarness({ config: { transport } });
      try {
        const run = await runDriver(h.driver, { prompt: "hello" });
        expect(run.error).toBeUndefined();
        expect(run.response?.failure).toBeUndefined();
        const warnings = run.recording.events.filter(({ event }) => event.type === "notice" && event.kind === "warning");
        expect(warnings.map(({ event }) => (event.type === "notice" ? event.data : undefined))).not.toContainEqual(
          expect.objectContaining({ check: "version" }),
        );
        expect(h.server.requests.length).toBeGreaterThan(0);
      } finally {
        await h.close();
      }
    });
  }
});

describe("the default codex binary's version is its package's", () => {
  it("read from @openai/codex's package.json (no --version process; not the platform package's suffixed one): the pinned version", () => {
    expect(defaultCodexVersion()).toBe(PINNED_CODEX_VERSION);
  });
});

/**
 * A version manager's shim at a `command` path that never changes (asdf, mise, volta): `--version`
 * prints the codex chosen in `version` (each call counted); anything else runs `target`.
 */
async function shim(
  dir: string,
  target: string,
): Promise<{ command: string; use(version: string): Promise<void>; asked(): Promise<number> }> {
  const command = join(dir, "codex");
  const chosen = join(dir, "version");
  const calls = join(dir, "calls");
  await writeFile(
    command,
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo x >> "${calls}"; echo "codex-cli $(cat "${chosen}")"; exit 0; fi\nexec "${target}" "$@"\n`,
  );
  await chmod(command, 0o755);
  await writeFile(chosen, PINNED_CODEX_VERSION);
  return {
    command,
    use: (version) => writeFile(chosen, version),
    asked: async () => (await readFile(calls, "utf8").catch(() => "")).split("\n").filter(Boolean).length,
  };
}

describe("codex behind a version manager's shim (a `command` whose file never changes)", () => {
  it("switched to a codex older than the floor: refused on app-server's initialize answer before the thread opens, then before it starts", async () => {
    const dir = await mkdtemp(join(tmpdir(), "adaptor-codex-shim-"));
    const cli = await shim(dir, fakeCliPath);
    // The fake plays the codex the shim runs: its initialize answer names that codex's version.
    const driverOn = (version: string) =>
      codex({ command: cli.command, env: { ...process.env, ...fakeCliEnv(appServer(version)) }, killGraceMs: 300 });
    const methods = (run: Awaited<ReturnType<typeof runDriver>>) =>
      echoedMethods(run.recording.ofType("process").flatMap((p) => (p.kind === "stdout" ? [p.text ?? ""] : [])));
    const spawns = (run: Awaited<ReturnType<typeof runDriver>>) => run.recording.ofType("process").filter((p) => p.kind === "spawn").length;
    try {
      const current = driverOn(PINNED_CODEX_VERSION);
      const first = await runDriver(current, { prompt: "hi" });
      await current.close();
      expect(methods(first)).toContain("thread/start");

      await cli.use("0.166.0");
      const old = driverOn("0.166.0");
      try {
        // Remembered: 0.171.0; app-server's own answer: 0.166.0. No thread request was written.
        const started = await runDriver(old, { prompt: "hi" });
        const refusal = findError(started.error, FeatureUnsupportedError);
        expect([refusal?.feature, refusal?.reason.startsWith(`codex 0.166.0 is older than ${MIN_CODEX_VERSION}`)]).toEqual([
          "cliVersion",
          true,
        ]);
        expect([methods(started).includes("thread/start"), spawns(started), await cli.asked()]).toEqual([false, 1, 1]);
        // Forgotten: asked again, refused before codex starts.
        const asked = await runDriver(old, { prompt: "hi" });
        expect(findError(asked.error, FeatureUnsupportedError)?.feature).toBe("cliVersion");
        expect([spawns(asked), await cli.asked()]).toEqual([0, 2]);
        // prewarm() too: nothing kept started.
        await cli.use(PINNED_CODEX_VERSION);
        await runDriver(old, { prompt: "hi" }).catch(() => undefined); // remembered 0.171.0 again, refused on the answer
        const warmed = await old.prewarm({}, new AbortController().signal).catch((e: unknown) => e);
        expect([findError(warmed, FeatureUnsupportedError)?.feature, old.prewarmedProcesses]).toEqual(["cliVersion", 0]);
      } finally {
        await old.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("the pinned codex behind a shim is asked --version once; later runs start on the remembered answer, no warning", async () => {
    const dir = await mkdtemp(join(tmpdir(), "adaptor-codex-shim-"));
    const cli = await shim(dir, defaultCodexCommand());
    const h = await codexHarness({ config: { command: cli.command } });
    try {
      for (let i = 0; i < 2; i++) {
        const run = await runDriver(h.driver, { prompt: "hello" });
        expect([run.error, run.response?.failure]).toEqual([undefined, undefined]);
        const warnings = run.recording.events.filter(({ event }) => event.type === "notice" && event.kind === "warning");
        expect(warnings.map(({ event }) => (event.type === "notice" ? event.data : undefined))).not.toContainEqual(
          expect.objectContaining({ check: "version" }),
        );
      }
      expect(await cli.asked()).toBe(1);
    } finally {
      await h.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("codex app-server: confirming the version codex names in its initialize answer", () => {
  it("a codex that never answers initialize ends the run after stallTimeoutMs with the stall's TIMEOUT", async () => {
    const steps: FakeCliStep[] = [{ awaitStdinLine: true }, { hang: true }];
    const env = fakeCliEnv(steps, { version: "codex-cli 0.171.0" });
    const driver = codex({ command: fakeCliPath, env, killGraceMs: 300, stallTimeoutMs: 1500 });
    // Far beyond the stall: a run still waiting then ignored stallTimeoutMs.
    const guard = AbortSignal.timeout(30_000);
    try {
      const run = await runDriver(driver, { prompt: "hi" }, { signal: guard });
      const error = findError(run.error, DriverError);
      expect([error?.code, error?.op, guard.aborted]).toEqual([ErrCode.Timeout, "stall", false]);
    } finally {
      await driver.close();
    }
  });

  it("a codex that never answers initialize ends a pre-warm after stallTimeoutMs with the stall's TIMEOUT", async () => {
    const steps: FakeCliStep[] = [{ awaitStdinLine: true }, { hang: true }];
    const env = fakeCliEnv(steps, { version: "codex-cli 0.171.0" });
    const driver = codex({ command: fakeCliPath, env, killGraceMs: 300, stallTimeoutMs: 1500 });
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

  it("a codex that exits at start-up is the turn's classified agent_error with its exit code and stderr", async () => {
    const complaint = 'Error: loading config.toml: invalid type: string "x", expected a boolean for key `foo`';
    const steps: FakeCliStep[] = [{ stderr: `${complaint}\n` }, { exit: 1 }];
    const driver = codex({ command: fakeCliPath, env: fakeCliEnv(steps, { version: "codex-cli 0.171.0" }), killGraceMs: 300 });
    try {
      const run = await runDriver(driver, { prompt: "hi" });
      expect(run.error).toBeUndefined();
      expect(run.response?.failure).toEqual({
        reason: "agent_error",
        message: `codex exited (code 1) before the turn completed: ${complaint}`,
        details: { exitCode: 1, exitSignal: null, stderrTail: complaint },
      });
    } finally {
      await driver.close();
    }
  });
});

describe("codex: a `command` that is a codex package's native binary in another install", () => {
  it("takes that package's version (its platform suffix dropped), starting nothing: an older package is refused before launch", async () => {
    const pkg = CODEX_PACKAGE_BINARIES[0];
    if (pkg === undefined) return; // no native package for this platform
    const dir = await mkdtemp(join(tmpdir(), "adaptor-codex-package-"));
    try {
      const root = join(dir, "node_modules", ...pkg.name.split("/"));
      const bin = join(root, ...pkg.binary.split("/"));
      const calls = join(dir, "calls");
      await mkdir(join(bin, ".."), { recursive: true });
      await writeFile(join(root, "package.json"), JSON.stringify({ name: pkg.name, version: `0.160.0${pkg.versionSuffix ?? ""}` }));
      await writeFile(bin, `#!/bin/sh\necho x >> "${calls}"\necho "codex-cli ${PINNED_CODEX_VERSION}"\n`);
      await chmod(bin, 0o755);
      for (const transport of ["app-server", "exec"] as const) {
        const driver = codex({ command: bin, transport, killGraceMs: 300 });
        try {
          const run = await runDriver(driver, { prompt: "hi" });
          const error = findError(run.error, FeatureUnsupportedError);
          expect([error?.feature, error?.reason.startsWith(`codex 0.160.0 is older than ${MIN_CODEX_VERSION}`)]).toEqual([
            "cliVersion",
            true,
          ]);
          expect(run.recording.ofType("process").filter((p) => p.kind === "spawn")).toEqual([]);
        } finally {
          await driver.close();
        }
      }
      expect(await readFile(calls, "utf8").catch(() => "")).toBe("");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
