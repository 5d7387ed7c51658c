import { readFileSync, readdirSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent, type AgentEvent, type Stream } from "adaptor";
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

/** Pids of this process's live children whose command line mentions codex. */
function codexChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("codex")) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

async function turn(stream: Stream): Promise<{ text: string; spawned: boolean; prewarmedPid: number | undefined }> {
  let spawned = false;
  let prewarmedPid: number | undefined;
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "process" && event.kind === "spawn") spawned = true;
    if (event.type === "notice" && event.message === "process reused" && event.data?.prewarmed === true)
      prewarmedPid = event.data.pid as number;
  }
  return { text: (await stream.result()).text, spawned, prewarmedPid };
}

// Several real processes per test on a busy machine: generous time, no timing assertion.
describe("pre-warmed codex app-server processes on the real binary", { timeout: 180_000 }, () => {
  it("a first turn runs on the pre-warmed process; a run with another model spawns its own and leaves it waiting", async () => {
    h = await codexHarness({ config: { model: "gpt-5.5" } });
    agent = new Agent(h.driver);
    const before = new Set(codexChildren());
    expect(await agent.prewarm()).toBe(1);
    const warm = codexChildren().filter((pid) => !before.has(pid));
    expect(warm).toHaveLength(1);
    expect(h.driver.prewarmedProcesses).toBe(1);

    const other = await turn(agent.stream("hello from another model", { model: "gpt-5.4" }));
    expect(other).toMatchObject({ spawned: true, prewarmedPid: undefined });
    expect(h.driver.prewarmedProcesses).toBe(1);

    const first = await turn(agent.stream("hello on the warm process"));
    expect(first.spawned).toBe(false);
    expect(first.prewarmedPid).toBe(warm[0]);
    expect(first.text).not.toBe("");
    expect(h.driver.prewarmedProcesses).toBe(0);
  });

  it("a pre-warmed process is never taken by a run with another configuration (a different env)", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    expect(await agent.prewarm()).toBe(1);
    const result = await turn(agent.stream("with a different env", { env: { ADAPTOR_TEST_MARKER: "1" } }));
    expect(result).toMatchObject({ spawned: true, prewarmedPid: undefined });
    expect(h.driver.prewarmedProcesses).toBe(1);
  });

  it("close() ends a pre-warmed process nobody took; idle eviction ends one after idleMs", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    const before = new Set(codexChildren());
    await agent.prewarm();
    const warm = codexChildren().filter((pid) => !before.has(pid));
    expect(warm).toHaveLength(1);
    await agent.close();
    expect(warm.filter(alive)).toEqual([]);
    expect(h.driver.prewarmedProcesses).toBe(0);

    const idle = new Agent(codex({ ...h.driver.config, idleMs: 200 }));
    try {
      const seen = new Set(codexChildren());
      await idle.prewarm();
      const idleWarm = codexChildren().filter((pid) => !seen.has(pid));
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
    expect(codexChildren()).toEqual([]);
  });
});
