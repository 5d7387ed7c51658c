import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// The CLI's own thread id on the Result, on the real codex binary: the id its rollout file is named
// by, the one a thread's checkpoint resumes by.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Rollout files of thread `id` under `$CODEX_HOME/sessions`. */
function rollouts(codexHome: string, id: string): string[] {
  const root = join(codexHome, "sessions");
  return (readdirSync(root, { recursive: true }) as string[]).filter((path) => path.endsWith(`-${id}.jsonl`));
}

describe("codex thread id on the Result (real binary)", { timeout: 120_000 }, () => {
  for (const transport of ["app-server", "exec"] as const) {
    it(`${transport}: result.sessionId is codex's thread id: the rollout's name, the thread checkpoint's, kept across turns`, async () => {
      h = await codexHarness();
      agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }), {
        threadStore: new MemoryThreadStore(),
      });
      const thread = agent.thread("chat");
      const first = await thread.run("first thread turn");
      expect(first.sessionId).toMatch(UUID);
      expect(rollouts(h.env.codexHome, first.sessionId!)).toHaveLength(1);
      expect((await thread.checkpoint())?.checkpoint.resumeId).toBe(first.sessionId);
      const second = await thread.run("second thread turn");
      expect(second.text).toContain("2 user message(s)");
      expect(second.sessionId).toBe(first.sessionId);
    });
  }
});
