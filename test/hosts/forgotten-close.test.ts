import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, codexTestEnv, geminiTestEnv, startAnthropicServer, startGeminiServer, startOpenAIServer } from "@adaptor/testkit";
import { waitForProcessGone } from "@adaptor/testkit/fake-cli";
import type { ForgetfulHostConfig } from "./forgets-close.js";
import { runHost } from "./run-host.js";

const HOST = fileURLToPath(new URL("./forgets-close.ts", import.meta.url));
/** Far below the default idleMs (5 minutes) the parked CLI would otherwise hold the host for. */
const SAFETY_NET_MS = 60_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs the forgetful host; resolves with its exit code (null: killed by the safety net) and its stdout. */
function runForgetfulHost(config: ForgetfulHostConfig): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runHost(HOST, config, SAFETY_NET_MS);
}

async function expectExitsAndEndsItsCli(config: ForgetfulHostConfig): Promise<void> {
  const { code, stdout, stderr } = await runForgetfulHost(config);
  expect(code, stderr).toBe(0); // not the safety net's SIGKILL
  const report = JSON.parse(stdout.trim().split("\n").at(-1)!) as { cli: number; running: boolean };
  expect(report.running).toBe(true); // the turn's CLI was parked for the next turn (or pre-warmed), not ended
  expect(await waitForProcessGone(report.cli, 10_000)).toBe(true); // and the host's exit ended it: no orphan
}

describe("a host that forgets agent.close()", () => {
  it("claude: exits by itself after a thread turn, and its parked CLI ends with it", { timeout: 120_000 }, async () => {
    const server = await startAnthropicServer({ rules: [] });
    const env = await claudeTestEnv({ server });
    cleanups.push(
      () => server.close(),
      () => env.cleanup(),
    );
    await expectExitsAndEndsItsCli({ driver: "claude", cwd: env.workDir, env: env.env });
  });

  it("codex: exits by itself after a thread turn, and its parked app-server ends with it", { timeout: 120_000 }, async () => {
    const server = await startOpenAIServer({ rules: [] });
    const env = await codexTestEnv({ server });
    cleanups.push(
      () => server.close(),
      () => env.cleanup(),
    );
    await expectExitsAndEndsItsCli({ driver: "codex", cwd: env.workDir, env: env.env });
  });

  it("claude: exits by itself after agent.prewarm(), and its pre-warmed CLI ends with it", { timeout: 120_000 }, async () => {
    const server = await startAnthropicServer({ rules: [] });
    const env = await claudeTestEnv({ server });
    cleanups.push(
      () => server.close(),
      () => env.cleanup(),
    );
    await expectExitsAndEndsItsCli({ driver: "claude", cwd: env.workDir, env: env.env, prewarm: true });
  });

  it("codex: exits by itself after agent.prewarm(), and its pre-warmed app-server ends with it", { timeout: 120_000 }, async () => {
    const server = await startOpenAIServer({ rules: [] });
    const env = await codexTestEnv({ server });
    cleanups.push(
      () => server.close(),
      () => env.cleanup(),
    );
    await expectExitsAndEndsItsCli({ driver: "codex", cwd: env.workDir, env: env.env, prewarm: true });
  });

  it("gemini (ACP): exits by itself after a thread turn, and its parked agent process ends with it", { timeout: 120_000 }, async () => {
    const server = await startGeminiServer({ rules: [] });
    const env = await geminiTestEnv({ server });
    cleanups.push(
      () => server.close(),
      () => env.cleanup(),
    );
    await expectExitsAndEndsItsCli({ driver: "gemini", cwd: env.workDir, env: env.env });
  });
});
