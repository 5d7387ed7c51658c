import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, whenToolOutput } from "@adaptor/testkit";
import { Agent, type AgentEvent, type RunOptions } from "adaptor";
import { drainStopped } from "../support/turn-events.js";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// A run the SDK stops (a denial whose fallback aborts, an approval left unanswered past its
// deadline, a tool-call budget) rejects with a RunError whose partial Result holds what the run
// showed: the usage of its model responses, their number (its `model.response` notices), the
// transcript and the refused call (real binary, app-server). Codex prices nothing: no cost, no
// usage per model, as on a Result of a run that completed.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const shell = (cmd: string, input: number, output: number) => ({
  functionCall: { name: "exec_command", arguments: { cmd } },
  usage: { input_tokens: input, output_tokens: output },
});

type Notice = Extract<AgentEvent, { type: "notice" }>;
const notices = (events: readonly AgentEvent[], kind: string): Notice[] =>
  events.filter((event): event is Notice => event.type === "notice" && event.kind === kind);
const callIds = (events: readonly AgentEvent[]): string[] =>
  events.flatMap((event) => (event.type === "tool-call" && event.phase === "start" ? [event.id] : []));

describe("the partial Result of a codex run the SDK stopped (real binary)", { timeout: 180_000 }, () => {
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
    it(`${name}: usage, numTurns, transcript and the refused call are what the events showed`, async () => {
      h = await codexHarness({ rules: [{ when: whenPromptSays("stop at the call"), reply: shell("touch x.txt", 5000, 50) }] });
      agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }));
      const { events, error } = await drainStopped(agent.stream("stop at the call", options));
      expect(error.reason).toBe(reason);
      const r = error.result;
      const [id] = callIds(events);
      const call = events.find((event) => event.type === "tool-call" && event.id === id && event.input !== undefined);
      expect(r.numTurns).toBe(notices(events, "model.response").length);
      expect(r.usage).toMatchObject({ inputTokens: 5000, outputTokens: 50 });
      expect(r.permissionDenials).toEqual([
        { toolName: "shell", toolCallId: id, input: call?.type === "tool-call" ? call.input : undefined },
      ]);
      expect(
        r
          .transcript()
          .filter((item) => item.kind === "tool-call")
          .map((item) => item.toolCallId),
      ).toEqual([id]);
      expect([r.costUsd, r.modelUsage]).toEqual([undefined, undefined]);
    });
  }

  it("a tool-call budget: the responses' usage and number, nothing refused", async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("two calls"), reply: shell("echo one", 300, 30) },
        { when: whenToolOutput("exec_command", "one"), reply: shell("echo two", 400, 40) },
      ],
    });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }), {
      policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } },
    });
    const { events, error } = await drainStopped(agent.stream("two calls", { budget: { maxToolCalls: 1 } }));
    expect(error.reason).toBe("budget_exceeded");
    const r = error.result;
    expect(r.numTurns).toBe(notices(events, "model.response").length);
    expect(r.permissionDenials).toEqual([]);
    expect(
      r
        .transcript()
        .filter((item) => item.kind === "tool-call")
        .map((item) => item.toolCallId),
    ).toEqual(callIds(events));
    expect(r.usage).toMatchObject({ inputTokens: 700, outputTokens: 70 });
    expect(r.numTurns).toBe(2);
  });
});
