import { beforeEach, describe, expect, it } from "vitest";
import { forgetCliVersions } from "@adaptor/driver/kit";
import { FeatureUnsupportedError } from "@adaptor/driver";
import { describeVersionFloor, runDriver } from "@adaptor/driver/testing";
import { findError } from "@adaptor/errors";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { codex, MIN_CODEX_VERSION, PINNED_CODEX_VERSION } from "../src/index.js";
import { CODEX_VERSION_FLOOR, defaultCodexVersion } from "../src/command.js";
import { codexHarness, fakeLine } from "./support.js";

// A codex older than MIN_CODEX_VERSION broke the driver's promises (it marked the workspace
// trusted at thread/start, ran MCP tools under ask without asking): it is refused before any process
// of the run starts. The fake CLI answers `--version` as given and plays an app-server that echoes
// what it reads.

/** The fake app-server: answers `initialize`, echoes the next two lines it reads (`initialized`, `thread/start`) and exits 1. */
function appServer(): FakeCliStep[] {
  return [
    { awaitStdinLine: true }, // initialize
    fakeLine({ id: 1, result: { userAgent: "adaptor/0.171.0", codexHome: "/x", platformFamily: "unix", platformOs: "linux" } }),
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
