import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "adaptor";
import { childrenMentioning, prewarmTurn } from "../support/prewarm.js";
import { codex, type CodexDriver } from "@adaptor/codex";
import { alive, codexHarness, type CodexHarness } from "./support.js";

// Pre-warmed app-server processes on the real codex binary: a first turn takes one launched alike
// (initialized, its thread already open), never one launched with another configuration, and
// close() / idle eviction end the ones nobody took.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

// Several real processes per test on a busy machine: generous time, no timing assertion.
describe("pre-warmed codex app-server processes on the real binary", { timeout: 180_000 }, () => {
  it("a first turn runs on the pre-warmed process; a run with another model spawns its own and leaves it waiting", async () => {
    h = await codexHarness({ config: { model: "gpt-5.5" } });
    agent = new Agent(h.driver);
    const before = new Set(childrenMentioning("codex"));
    expect(await agent.prewarm()).toBe(1);
    const warm = childrenMentioning("codex").filter((pid) => !before.has(pid));
    expect(warm).toHaveLength(1);
    expect(h.driver.prewarmedProcesses).toBe(1);

    const other = await prewarmTurn(agent.stream("hello from another model", { model: "gpt-5.4" }));
    expect(other).toMatchObject({ spawned: true, prewarmedPid: undefined });
    expect(h.driver.prewarmedProcesses).toBe(1);

    const first = await prewarmTurn(agent.stream("hello on the warm process"));
    expect(first.spawned).toBe(false);
    expect(first.prewarmedPid).toBe(warm[0]);
    expect(first.text).not.toBe("");
    expect(h.driver.prewarmedProcesses).toBe(0);
  });

  it("a pre-warmed process is never taken by a run with another configuration (a different env)", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    expect(await agent.prewarm()).toBe(1);
    const result = await prewarmTurn(agent.stream("with a different env", { env: { ADAPTOR_TEST_MARKER: "1" } }));
    expect(result).toMatchObject({ spawned: true, prewarmedPid: undefined });
    expect(h.driver.prewarmedProcesses).toBe(1);
  });

  it("close() ends a pre-warmed process nobody took; idle eviction ends one after idleMs", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    const before = new Set(childrenMentioning("codex"));
    await agent.prewarm();
    const warm = childrenMentioning("codex").filter((pid) => !before.has(pid));
    expect(warm).toHaveLength(1);
    await agent.close();
    expect(warm.filter(alive)).toEqual([]);
    expect(h.driver.prewarmedProcesses).toBe(0);

    const idle = new Agent(codex({ ...h.driver.config, idleMs: 200 }));
    try {
      const seen = new Set(childrenMentioning("codex"));
      await idle.prewarm();
      const idleWarm = childrenMentioning("codex").filter((pid) => !seen.has(pid));
      expect(idleWarm).toHaveLength(1);
      await vi.waitFor(() => expect(idleWarm.filter(alive)).toEqual([]), { timeout: 30_000, interval: 100 });
      expect((idle.driver as CodexDriver).prewarmedProcesses).toBe(0);
    } finally {
      await idle.close();
    }
  });

  it("transport exec cannot be pre-warmed: prewarm() starts nothing and reports 0", async () => {
    h = await codexHarness({ config: { transport: "exec" } });
    agent = new Agent(h.driver);
    expect(await agent.prewarm()).toBe(0);
    expect(childrenMentioning("codex")).toEqual([]);
  });
});
