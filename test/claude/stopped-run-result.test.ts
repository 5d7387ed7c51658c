import { afterEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays, type ScriptRule } from "@adaptor/testkit";
import { Agent, type AgentEvent, type RunError, type RunOptions } from "adaptor";
import { drainStopped } from "../support/turn-events.js";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// A run the SDK stops (a denial whose fallback aborts, an approval left unanswered past its
// deadline, a tool-call budget) rejects with a RunError whose partial Result holds what the run
// showed: the usage and cost of its model responses (the result line the CLI writes as it is
// stopped), their number, usage per model, the transcript and the refused call (real binary).

const MODEL = "claude-sonnet-4-5";
// claude-sonnet-4-5 list prices: $3 per million input tokens, $15 per million output tokens.
const cost = (input: number, output: number): number => (input * 3 + output * 15) / 1_000_000;
const RULES: ScriptRule[] = [
  {
    when: whenUserSays("stop at the call"),
    reply: {
      text: "running it. ",
      toolUse: { name: "Bash", input: { command: "touch x.txt" } },
      usage: { input_tokens: 5000, output_tokens: 50 },
    },
  },
  {
    when: whenUserSays("two calls"),
    reply: { toolUse: { name: "Bash", input: { command: "echo one" } }, usage: { input_tokens: 300, output_tokens: 30 } },
  },
  {
    when: whenToolResult("Bash"),
    reply: { toolUse: { name: "Bash", input: { command: "echo two" } }, usage: { input_tokens: 400, output_tokens: 40 } },
  },
];

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

function count(events: readonly AgentEvent[], kind: string): number {
  return events.filter((event) => event.type === "notice" && event.kind === kind).length;
}

function calls(events: readonly AgentEvent[]): { id: string; input: unknown }[] {
  return events.flatMap((event) => (event.type === "tool-call" && event.phase === "end" ? [{ id: event.id, input: event.input }] : []));
}

async function stoppedAtTheCall(options: RunOptions): Promise<{ events: AgentEvent[]; error: RunError }> {
  h = await harness(RULES);
  agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: MODEL }));
  return drainStopped(agent.stream("stop at the call", options));
}

describe("the partial Result of a Claude run the SDK stopped (real binary)", { timeout: 180_000 }, () => {
  for (const [name, reason, options] of [
    [
      "a denial whose onReject fallback aborts",
      "approval_denied",
      { policy: { approvals: { permission: "ask", onReject: "abort" } }, onApproval: (r) => r.deny("stop here") },
    ],
    [
      "an approval left unanswered past its deadline",
      "approval_timeout",
      { policy: { approvals: { permission: "ask", timeoutMs: 1000 } } },
    ],
  ] as const satisfies readonly (readonly [string, string, RunOptions])[]) {
    it(`${name}: usage, modelUsage, numTurns, transcript and the refused call are what the events showed`, async () => {
      const { events, error } = await stoppedAtTheCall(options);
      expect(error.reason).toBe(reason);
      const r = error.result;
      const [call] = calls(events);
      expect(count(events, "model.response")).toBe(1);
      expect(r.numTurns).toBe(1);
      expect(r.usage).toMatchObject({ inputTokens: 5000, outputTokens: 50 });
      expect(r.costUsd).toBeCloseTo(cost(5000, 50), 10);
      expect(r.modelUsage).toEqual({ [MODEL]: { ...r.usage, costUsd: r.costUsd } });
      expect(r.model).toBe(MODEL);
      expect(r.text).toBe("running it. ");
      expect(r.permissionDenials).toEqual([{ toolName: "Bash", toolCallId: call?.id, input: { command: "touch x.txt" } }]);
      expect(
        r
          .transcript()
          .filter((item) => item.kind === "tool-call")
          .map((item) => item.toolCallId),
      ).toEqual([call?.id]);
    });
  }

  it("a tool-call budget: both responses' usage and the run's calls, nothing refused", async () => {
    h = await harness(RULES);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: MODEL }), {
      policy: { approvals: { permission: "auto_approve" } },
    });
    const { events, error } = await drainStopped(agent.stream("two calls", { budget: { maxToolCalls: 1 } }));
    expect(error.reason).toBe("budget_exceeded");
    const r = error.result;
    expect(count(events, "model.response")).toBe(2);
    expect(r.numTurns).toBe(2);
    expect(r.usage).toMatchObject({ inputTokens: 700, outputTokens: 70 });
    expect(r.costUsd).toBeCloseTo(cost(700, 70), 10);
    expect(r.modelUsage).toEqual({ [MODEL]: { ...r.usage, costUsd: r.costUsd } });
    expect(r.permissionDenials).toEqual([]);
    expect(r.transcript().filter((item) => item.kind === "tool-call").length).toBeGreaterThanOrEqual(1);
  });
});
