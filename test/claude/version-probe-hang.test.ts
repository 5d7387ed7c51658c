import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { Agent, DriverError, ErrAgentClosed, findError, isError } from "adaptor";
import { claude } from "@adaptor/claude";
import { forgetCliVersions, processGone, VERSION_PROBE_TIMEOUT_MS } from "@adaptor/driver/kit";

// Fault injection: a `command` whose `--version` never answers (a shim waiting on a lock or a
// prompt); any other invocation plays one turn with the fake CLI. The run's own signal, deadline
// and the Agent's close() end the probe at once, and a probe past its own deadline reads as no version.

const line = (value: unknown): FakeCliStep => ({ write: `${JSON.stringify(value)}\n` });
const TURN: FakeCliStep[] = [
  { awaitStdinLine: true },
  line({ type: "system", subtype: "init", session_id: "s-fake", model: "fake-model", tools: [] }),
  line({ type: "result", subtype: "success", is_error: false, result: "done", session_id: "s-fake", num_turns: 1 }),
];

let dir: string;
let command: string;

beforeEach(async () => {
  forgetCliVersions();
  dir = await mkdtemp(join(tmpdir(), "adaptor-version-hang-"));
  command = join(dir, "claude");
  const pid = join(dir, "pid");
  await writeFile(
    command,
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo $$ > "${pid}"; exec sleep 600; fi\nexec "${fakeCliPath}" "$@"\n`,
  );
  await chmod(command, 0o755);
});

afterEach(async () => {
  forgetCliVersions();
  await rm(dir, { recursive: true, force: true });
});

/** The pid of the `--version` probe, once it started. */
async function probePid(): Promise<number> {
  for (;;) {
    const text = await readFile(join(dir, "pid"), "utf8").catch(() => "");
    if (text.trim() !== "") return Number(text.trim());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const agent = (): Agent =>
  new Agent(claude({ command, env: { ...process.env, ...fakeCliEnv(TURN) }, inheritEnv: false, killGraceMs: 300 }));

describe("claude: a --version probe that never answers", () => {
  it("timeoutMs ends the run with its TIMEOUT at once (not at the probe's own deadline), the probe ended", async () => {
    const a = agent();
    try {
      const started = Date.now();
      const error = await a.run("hi", { timeoutMs: 1500 }).catch((e: unknown) => e);
      expect(findError(error, DriverError)?.message).toBe("[TIMEOUT] run: claude (exceeded timeoutMs=1500)");
      expect(Date.now() - started).toBeLessThan(VERSION_PROBE_TIMEOUT_MS / 2);
      expect(processGone(await probePid())).toBe(true);
    } finally {
      await a.close();
    }
  });

  it("an abort ends the run with its reason at once, the probe ended", async () => {
    const a = agent();
    try {
      const controller = new AbortController();
      const reason = new Error("host abort");
      const running = a.run("hi", { signal: controller.signal }).catch((e: unknown) => e);
      const pid = await probePid();
      const started = Date.now();
      controller.abort(reason);
      expect(await running).toBe(reason);
      expect(Date.now() - started).toBeLessThan(VERSION_PROBE_TIMEOUT_MS / 2);
      expect(processGone(pid)).toBe(true);
    } finally {
      await a.close();
    }
  });

  it("close() ends the run (ErrAgentClosed) and resolves at once, the probe ended", async () => {
    const a = agent();
    const running = a.run("hi").catch((e: unknown) => e);
    const pid = await probePid();
    const started = Date.now();
    await a.close();
    expect(Date.now() - started).toBeLessThan(VERSION_PROBE_TIMEOUT_MS / 2);
    expect(isError(await running, ErrAgentClosed)).toBe(true);
    expect(processGone(pid)).toBe(true);
  });

  it("with no deadline of the run's, the probe's own one passing reads as no version: the run goes on, with the warning notice", async () => {
    const a = agent();
    try {
      const stream = a.stream("hi");
      const warnings: unknown[] = [];
      for await (const event of stream) if (event.type === "notice" && event.kind === "warning") warnings.push(event.data);
      const result = await stream.result();
      expect([result.status, result.text]).toEqual(["completed", "done"]);
      expect(warnings).toContainEqual({
        check: "version",
        minimum: "2.1.270",
        output: `(no answer within ${VERSION_PROBE_TIMEOUT_MS} ms)`,
      });
      expect(processGone(await probePid())).toBe(true);
    } finally {
      await a.close();
    }
  });
});
