import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, codexTestEnv, geminiTestEnv, startAnthropicServer, startGeminiServer, startOpenAIServer } from "@adaptor/testkit";
import { waitForProcessGone } from "@adaptor/testkit/fake-cli";
import type { ForgetfulHostConfig } from "./forgets-close.js";

const HOST = fileURLToPath(new URL("./forgets-close.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Far below the default idleMs (5 minutes) the parked CLI would otherwise hold the host for. */
const SAFETY_NET_MS = 60_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs the forgetful host; resolves with its exit code (null: killed by the safety net) and its stdout. */
function runHost(config: ForgetfulHostConfig): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", HOST], {
    cwd: ROOT,
    env: { ...process.env, ADAPTOR_HOST: JSON.stringify(config) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const net = setTimeout(() => child.kill("SIGKILL"), SAFETY_NET_MS);
  return new Promise((resolve) =>
    child.once("close", (code) => {
      clearTimeout(net);
      resolve({ code, stdout, stderr });
    }),
  );
}

async function expectExitsAndEndsItsCli(config: ForgetfulHostConfig): Promise<void> {
  const { code, stdout, stderr } = await runHost(config);
  expect(code, stderr).toBe(0); // not the safety net's SIGKILL
  const report = JSON.parse(stdout.trim().split("\n").at(-1)!) as { cli: number; running: boolean };
  expect(report.running).toBe(true); // the turn's CLI was parked for the next turn, not ended
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
