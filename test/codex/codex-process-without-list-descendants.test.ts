import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";
import type { CodexDriver } from "@adaptor/codex";
import type { CliProcess } from "@adaptor/driver/process";
import { prewarmTurn } from "../support/prewarm.js";
import { codexHarness, type CodexHarness } from "./support.js";

// A CliProcess implementation written before `listDescendants` existed (it is optional) still runs
// turns through the kit's callers of it: every process the codex driver spawns here lacks it.
vi.mock("@adaptor/driver/process", async (importOriginal) => {
  const real = await importOriginal<typeof import("@adaptor/driver/process")>();
  /** `proc` as an implementation without `listDescendants` sees it. */
  const withoutListing = (proc: CliProcess): CliProcess =>
    new Proxy(proc, {
      has: (target, key) => key !== "listDescendants" && Reflect.has(target, key),
      get: (target, key) => {
        if (key === "listDescendants") return undefined;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  return { ...real, spawnCli: async (...args: Parameters<typeof real.spawnCli>) => withoutListing(await real.spawnCli(...args)) };
});

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

describe("codex on a CliProcess without listDescendants (real binary)", { timeout: 180_000 }, () => {
  it("a pre-warmed process runs its turn; nothing being known of what it left, it is ended rather than handed back", async () => {
    h = await codexHarness({ config: { handBackSettleMs: 60_000 } });
    agent = new Agent(h.driver);
    expect(await agent.prewarm()).toBe(1);
    const first = await prewarmTurn(agent.stream("hello on the warm process"));
    expect(first.prewarmedPid).toBeDefined();
    expect(first.text).toMatch(/^Fake reply\./);
    expect((agent.driver as CodexDriver).prewarmedProcesses).toBe(0);
  });

  it("two turns of a thread run on one kept process (the turn's leftovers are not looked for)", async () => {
    h = await codexHarness({});
    agent = new Agent(h.driver, { threadStore: new MemoryThreadStore() });
    const thread = agent.thread("chat");
    expect((await thread.run("first turn")).text).toMatch(/^Fake reply\./);
    expect((agent.driver as CodexDriver).parkedProcesses).toBe(1);
    const second = await thread.run("second turn");
    expect(second.text).toContain("2 user message(s)");
  });
});
