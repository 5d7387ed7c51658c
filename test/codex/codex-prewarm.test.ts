import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "adaptor";
import { childrenMentioning, childrenStartedBy, prewarmTurn, processesWithArgument } from "../support/prewarm.js";
import { codex, type CodexDriver } from "@adaptor/codex";
import { whenPromptSays } from "@adaptor/testkit";
import { alive, codexHarness, type CodexHarness } from "./support.js";

// Pre-warmed app-server processes on the real codex binary: a first turn takes one launched alike
// (initialized, its thread already open), never one launched with another configuration, and
// close() / idle eviction end the ones nobody took. After a healthy run that left nothing running
// the process goes back among them with a new thread; any other run ends it.

// Codex's own helpers (the `git` commands describing the working directory) end by themselves; on a
// busy machine they may need more than the default second, and a run must not miss its hand-back then.
const SETTLE = { handBackSettleMs: 60_000 };

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
    h = await codexHarness({ config: { model: "gpt-5.5", ...SETTLE } });
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
    // Healthy, nothing left running: the process goes back among the pre-warmed ones (a new thread opened).
    await vi.waitFor(() => expect(h!.driver.prewarmedProcesses).toBe(1), { timeout: 30_000, interval: 50 });
    expect(childrenMentioning("codex").filter((pid) => !before.has(pid))).toEqual(warm);
  });

  it("a healthy run hands its pre-warmed process back: the next first turn runs there in a new thread of its own, with nothing of the first", async () => {
    h = await codexHarness({ config: SETTLE });
    agent = new Agent(h.driver);
    const warm = await childrenStartedBy("codex", () => agent!.prewarm());
    expect(warm).toHaveLength(1);

    const first = await prewarmTurn(agent.stream("the first conversation"));
    expect(first.prewarmedPid).toBe(warm[0]);
    expect(alive(warm[0]!)).toBe(true); // the run did not end it
    await vi.waitFor(() => expect(h!.driver.prewarmedProcesses).toBe(1), { timeout: 30_000, interval: 50 });

    const second = await prewarmTurn(agent.stream("the second conversation"));
    expect(second).toMatchObject({ spawned: false, prewarmedPid: warm[0] });
    const threads = h.server.responses().map((r) => (r.body as { client_metadata?: { thread_id?: string } }).client_metadata?.thread_id);
    expect(threads).toHaveLength(2);
    expect(threads[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(threads[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(threads[1]).not.toBe(threads[0]);
    // The second conversation starts empty: the model sees what it saw in the first, with its own prompt.
    const seen = (text: string) => /I saw (\d+) input item\(s\), (\d+) user message\(s\)/.exec(text)?.slice(1);
    expect(seen(second.text)).toEqual(seen(first.text));
    expect(JSON.stringify(h.server.responses()[1]?.body)).not.toContain("the first conversation");

    await vi.waitFor(() => expect(h!.driver.prewarmedProcesses).toBe(1), { timeout: 30_000, interval: 50 });
    await agent.close(); // close() ends a handed-back process
    expect(alive(warm[0]!)).toBe(false);
    expect(h.driver.prewarmedProcesses).toBe(0);
  });

  it("a handed-back process is never taken by a run with another configuration, and idle eviction ends it", async () => {
    h = await codexHarness({ config: SETTLE });
    agent = new Agent(codex({ ...h.driver.config, idleMs: 10_000 }));
    const driver = agent.driver as CodexDriver;
    const warm = await childrenStartedBy("codex", () => agent!.prewarm());
    expect((await prewarmTurn(agent.stream("first"))).prewarmedPid).toBe(warm[0]);
    await vi.waitFor(() => expect(driver.prewarmedProcesses).toBe(1), { timeout: 30_000, interval: 50 });

    const other = await prewarmTurn(agent.stream("another env", { env: { ADAPTOR_TEST_MARKER: "1" } }));
    expect(other).toMatchObject({ spawned: true, prewarmedPid: undefined });
    const model = await prewarmTurn(agent.stream("another model", { model: "gpt-5.4" }));
    expect(model).toMatchObject({ spawned: true, prewarmedPid: undefined });
    expect(driver.prewarmedProcesses).toBe(1);

    await vi.waitFor(() => expect(alive(warm[0]!)).toBe(false), { timeout: 60_000, interval: 100 });
    expect(driver.prewarmedProcesses).toBe(0);
  });

  it.skipIf(process.platform !== "linux")(
    "a run that leaves a process running is not handed back: its pre-warmed process exits and ends that process",
    async () => {
      const marker = `adaptor-prewarm-marker-${process.pid}-${Date.now()}`;
      // A command still running when codex answers (yield_time_ms): codex keeps it in an exec session past the turn.
      const cmd = `node -e "setInterval(() => {}, 1000)" ${marker}`;
      h = await codexHarness({
        rules: [
          {
            name: "long job",
            when: whenPromptSays("LONG_JOB"),
            reply: { functionCall: { name: "exec_command", arguments: { cmd, yield_time_ms: 1000 } } },
          },
        ],
      });
      agent = new Agent(h.driver, { policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } } });
      const warm = await childrenStartedBy("codex", () => agent!.prewarm());
      const job = await prewarmTurn(agent.stream("LONG_JOB"));
      expect(job.prewarmedPid).toBe(warm[0]);
      expect(h.server.responses().map((r) => r.rule)).toEqual(["long job", "directive"]);
      expect(job.text).toMatch(/^Done: /);
      expect(alive(warm[0]!)).toBe(false);
      await vi.waitFor(() => expect(processesWithArgument(marker)).toEqual([]), { timeout: 10_000, interval: 100 });
      expect(h.driver.prewarmedProcesses).toBe(0);
    },
  );

  it("a pre-warmed process is never taken by a run with another configuration (a different env)", async () => {
    h = await codexHarness({ config: SETTLE });
    agent = new Agent(h.driver);
    expect(await agent.prewarm()).toBe(1);
    const result = await prewarmTurn(agent.stream("with a different env", { env: { ADAPTOR_TEST_MARKER: "1" } }));
    expect(result).toMatchObject({ spawned: true, prewarmedPid: undefined });
    expect(h.driver.prewarmedProcesses).toBe(1);
  });

  it("close() ends a pre-warmed process nobody took; idle eviction ends one after idleMs", async () => {
    h = await codexHarness({ config: SETTLE });
    agent = new Agent(h.driver);
    const warm = await childrenStartedBy("codex", () => agent!.prewarm());
    expect(warm).toHaveLength(1);
    await agent.close();
    expect(warm.filter(alive)).toEqual([]);
    expect(h.driver.prewarmedProcesses).toBe(0);

    // idleMs well over a second: the check right after the turn must see the process before eviction, also on a busy machine.
    const idle = new Agent(codex({ ...h.driver.config, idleMs: 3_000 }));
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
