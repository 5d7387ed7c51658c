import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, codexTestEnv, geminiTestEnv, startAnthropicServer, startGeminiServer, startOpenAIServer } from "@adaptor/testkit";
import type { AwaitingHostConfig } from "./awaits-runs.js";

const HOST = fileURLToPath(new URL("./awaits-runs.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SAFETY_NET_MS = 150_000;
/** Each model reply waits this long: the host's runs stay pending with only the SDK's handles. */
const SLOW = "SLOW_MS 1000";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs the awaiting host; resolves with its exit code (13: its loop emptied while it awaited the SDK) and the steps it printed. */
function runHost(config: AwaitingHostConfig): Promise<{ code: number | null; steps: Record<string, unknown>[]; stderr: string }> {
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
      const steps = stdout
        .trim()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ code, steps, stderr });
    }),
  );
}

async function expectEveryStepAwaited(config: AwaitingHostConfig, prewarmed: number): Promise<void> {
  const { code, steps, stderr } = await runHost(config);
  expect({ code, last: steps.at(-1)?.["step"] }, stderr).toEqual({ code: 0, last: "closed" });
  expect(steps.map((s) => [s["step"], s["count"] ?? s["reused"]])).toEqual([
    ["prewarmed", prewarmed],
    ["first turn", prewarmed > 0],
    ["thread turn 1", false],
    ["thread turn 2", true], // on the parked process, re-held for the turn
    ["thread turn 3 (fresh process)", false], // the parked process was ended first
    ["closed", undefined],
  ]);
}

describe("a host whose only work is awaiting the SDK never exits while a run or close() is pending", () => {
  it("codex: pre-warmed, parked-then-reused and evicted app-server processes", { timeout: 180_000 }, async () => {
    const server = await startOpenAIServer({ rules: [] });
    const env = await codexTestEnv({ server });
    cleanups.push(
      () => server.close(),
      () => env.cleanup(),
    );
    await expectEveryStepAwaited({ driver: "codex", cwd: env.workDir, env: env.env, slow: SLOW }, 1);
  });

  it("claude: pre-warmed, parked-then-reused and evicted CLI processes", { timeout: 180_000 }, async () => {
    const server = await startAnthropicServer({ rules: [] });
    const env = await claudeTestEnv({ server });
    cleanups.push(
      () => server.close(),
      () => env.cleanup(),
    );
    await expectEveryStepAwaited({ driver: "claude", cwd: env.workDir, env: env.env, slow: SLOW }, 1);
  });

  it("gemini (ACP): pre-warmed, parked-then-reused and evicted agent processes", { timeout: 180_000 }, async () => {
    const server = await startGeminiServer({ rules: [] });
    const env = await geminiTestEnv({ server });
    cleanups.push(
      () => server.close(),
      () => env.cleanup(),
    );
    await expectEveryStepAwaited({ driver: "gemini", cwd: env.workDir, env: env.env, slow: SLOW }, 1);
  });
});
