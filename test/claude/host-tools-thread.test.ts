import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { Agent, defineTool, type AgentEvent } from "adaptor";
import { claude, type ClaudeDriver } from "@adaptor/claude";
import { alive, harness, type Harness } from "./support.js";

// A thread whose agent has host tools keeps its claude process between turns (real binary, pinned
// 2.1.332): the thread's host-tool grant (URL and bearer token) stays the same for all its turns, so
// the launch inputs match and the parked process is reused; each call reaches the turn being served.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const seen: { id: string; runId: string }[] = [];
const lookup = defineTool({
  name: "lookup_order",
  description: "Find an order by id",
  input: z.object({ id: z.string() }),
  handler: (input, context) => {
    seen.push({ id: input.id, runId: context.runId });
    return { id: input.id, total: 42 };
  },
});

const RULES = [
  { name: "after-tool", when: whenToolResult("mcp__adaptor__lookup_order", '"total":42'), reply: { text: "looked it up" } },
  ...[1, 2, 3].map((n) => ({
    name: `turn-${n}`,
    when: whenUserSays(`turn ${n}`),
    reply: { toolUse: { name: "mcp__adaptor__lookup_order", input: { id: `o${n}` } } },
  })),
];

describe("host tools on a claude thread", { timeout: 120_000 }, () => {
  it("a three-turn thread with a host tool spawns one process; each turn's call reaches that turn", async () => {
    h = await harness(RULES);
    seen.length = 0;
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
      tools: [lookup],
    });
    const thread = agent.thread("orders");
    const spawned: number[] = [];
    const turns: { runId: string; results: string[] }[] = [];
    for (const n of [1, 2, 3]) {
      const stream = thread.stream(`turn ${n}`);
      const results: string[] = [];
      for await (const event of stream as AsyncIterable<AgentEvent>) {
        if (event.type === "process" && event.kind === "spawn" && event.pid !== undefined) spawned.push(event.pid);
        if (event.type === "tool-result" && event.name === "lookup_order") results.push(event.output);
      }
      expect((await stream.result()).text).toBe("looked it up");
      turns.push({ runId: stream.runId, results });
    }
    expect(spawned).toHaveLength(1);
    expect(seen).toEqual(turns.map((turn, i) => ({ id: `o${i + 1}`, runId: turn.runId })));
    expect(turns.map((turn) => turn.results.length)).toEqual([1, 1, 1]);
    expect((agent.driver as ClaudeDriver).parkedProcesses).toBe(1);
    await agent.close();
    expect(alive(spawned[0]!)).toBe(false);
  });
});
