import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, codexTestEnv, geminiTestEnv, startAnthropicServer, startGeminiServer, startOpenAIServer } from "@adaptor/testkit";
import type { AwaitingHostConfig } from "./awaits-runs.js";
import { runHost } from "./run-host.js";

const HOST = fileURLToPath(new URL("./awaits-runs.ts", import.meta.url));
const SAFETY_NET_MS = 150_000;
/** Each model reply waits this long: the host's runs stay pending with only the SDK's handles. */
const SLOW = "SLOW_MS 1000";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs the awaiting host; resolves with its exit code (13: its loop emptied while it awaited the SDK) and the steps it printed. */
async function runAwaitingHost(
  config: AwaitingHostConfig,
): Promise<{ code: number | null; steps: Record<string, unknown>[]; stderr: string }> {
  const { code, stdout, stderr } = await runHost(HOST, config, SAFETY_NET_MS);
  const steps = stdout
    .trim()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, steps, stderr };
}

async function expectEveryStepAwaited(config: AwaitingHostConfig): Promise<void> {
  const { code, steps, stderr } = await runAwaitingHost(config);
  expect({ code, last: steps.at(-1)?.["step"] }, stderr).toEqual({ code: 0, last: "closed" });
  expect(steps.map((s) => [s["step"], s["count"] ?? s["reused"]])).toEqual([
    ["prewarmed", 1],
    ["first turn", true], // on the pre-warmed process
    ["thread turn 1", false],
    ["thread turn 2", true], // on the parked process, re-held for the turn
    ["thread turn 3 (fresh process)", false], // the parked process was ended first
    ["closed", undefined],
  ]);
}

const SERVERS = {
  codex: async () => {
    const server = await startOpenAIServer({ rules: [] });
    return { server, env: await codexTestEnv({ server }) };
  },
  claude: async () => {
    const server = await startAnthropicServer({ rules: [] });
    return { server, env: await claudeTestEnv({ server }) };
  },
  gemini: async () => {
    const server = await startGeminiServer({ rules: [] });
    return { server, env: await geminiTestEnv({ server }) };
  },
} as const;

describe("a host whose only work is awaiting the SDK never exits while a run or close() is pending", () => {
  const cases = [
    ["codex", "pre-warmed, parked-then-reused and evicted app-server processes"],
    ["claude", "pre-warmed, parked-then-reused and evicted CLI processes"],
    ["gemini", "(ACP) pre-warmed, parked-then-reused and evicted agent processes"],
  ] as const;
  for (const [driver, what] of cases) {
    it(`${driver}: ${what}`, { timeout: 180_000 }, async () => {
      const { server, env } = await SERVERS[driver]();
      cleanups.push(
        () => server.close(),
        () => env.cleanup(),
      );
      await expectEveryStepAwaited({ driver, cwd: env.workDir, env: env.env, slow: SLOW });
    });
  }

  it(
    "codex: a cold first turn whose CLI exits with its background shell snapshot still running (the sweep after its exit)",
    { timeout: 180_000 },
    async () => {
      const { server, env } = await SERVERS.codex();
      cleanups.push(
        () => server.close(),
        () => env.cleanup(),
      );
      // codex snapshots the login shell in the background when a thread starts; a slow profile (as a
      // loaded machine makes it) keeps that shell running after the turn ended and codex exited, so
      // the run's end waits for the SDK to end it.
      await writeFile(join(env.env["HOME"]!, ".bash_profile"), "sleep 5\n");
      const { code, steps, stderr } = await runAwaitingHost({ driver: "codex", cwd: env.workDir, env: env.env, slow: "", coldOnly: true });
      expect({ code, steps }, stderr).toEqual({
        code: 0,
        steps: [{ step: "cold first turn", reused: false, text: expect.any(String) }, { step: "closed" }],
      });
    },
  );
});
