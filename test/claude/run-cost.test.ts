import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenUserSays, type ScriptRule } from "@adaptor/testkit";
import { Agent, type AgentEvent, type Result, type Stream } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// Per-run cost and usage on the real claude binary. The CLI's `total_cost_usd` is the session's
// running total: it grows on a reused process, is restored by `--resume` and carried into a fork.
// Each result must report its own turn only.

// claude-sonnet-4-5 list prices the CLI computes cost with: $3 per million input tokens, $15 per
// million output tokens.
const INPUT_USD = 3 / 1_000_000;
const OUTPUT_USD = 15 / 1_000_000;

const TURNS = [
  { marker: "cost-fresh", input: 100, output: 10 },
  { marker: "cost-reused", input: 200, output: 20 },
  { marker: "cost-resumed", input: 300, output: 30 },
  { marker: "cost-forked", input: 400, output: 40 },
] as const;

const RULES: ScriptRule[] = TURNS.map((turn) => ({
  when: whenUserSays(turn.marker),
  reply: { text: `ok ${turn.marker}`, usage: { input_tokens: turn.input, output_tokens: turn.output } },
}));

let h: Harness | undefined;
let extra: Agent | undefined;
afterEach(async () => {
  await extra?.close();
  await h?.close();
  h = extra = undefined;
});

async function turn(stream: Stream): Promise<{ result: Result; reused: boolean; spawned: boolean }> {
  let reused = false;
  let spawned = false;
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "notice" && event.message === "process reused") reused = true;
    if (event.type === "process" && event.kind === "spawn") spawned = true;
  }
  return { result: await stream.result(), reused, spawned };
}

describe("per-run cost and usage (real binary)", { timeout: 180_000 }, () => {
  it("fresh, reused, resumed in a new process, forked: each result is its own turn, and they add up to the session's total", async () => {
    h = await harness(RULES);
    extra = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
    });
    const thread = extra.thread("costs");
    const fresh = await turn(thread.stream("cost-fresh"));
    const reused = await turn(thread.stream("cost-reused"));
    const resumed = await turn(thread.stream("cost-resumed", { spawn: true }));
    const forked = await turn(thread.fork("costs-fork").stream("cost-forked"));
    expect([fresh.spawned, reused.reused, resumed.spawned && !resumed.reused, forked.spawned]).toEqual([true, true, true, true]);

    const results = [fresh, reused, resumed, forked].map((t) => t.result);
    results.forEach((result, i) => {
      const scripted = TURNS[i]!;
      expect(result.usage).toEqual({ inputTokens: scripted.input, outputTokens: scripted.output, cacheReadTokens: 0, cacheWriteTokens: 0 });
      expect(result.costUsd).toBeCloseTo(scripted.input * INPUT_USD + scripted.output * OUTPUT_USD, 12);
      // Derived from the CLI's figures, it reads as they do: no float noise from the arithmetic.
      expect(result.costUsd).toBe(Number(result.costUsd!.toPrecision(12)));
      for (const usage of Object.values(result.modelUsage ?? {})) expect(usage.costUsd).toBe(Number(usage.costUsd!.toPrecision(12)));
    });
    const sum = results.reduce((total, result) => total + result.costUsd!, 0);
    const expected = TURNS.reduce((total, t) => total + t.input * INPUT_USD + t.output * OUTPUT_USD, 0);
    expect(sum).toBeCloseTo(expected, 12);
    // The fork's session carries the whole history, so its running total is all four turns.
    const forkTotal = (JSON.parse(forked.result.raw().terminal?.json ?? "{}") as { total_cost_usd?: number }).total_cost_usd;
    expect(sum).toBeCloseTo(forkTotal!, 12);
    const inputs = results.reduce((total, result) => total + result.usage!.inputTokens, 0);
    expect(inputs).toBe(TURNS.reduce((total, t) => total + t.input, 0));
  });
});
