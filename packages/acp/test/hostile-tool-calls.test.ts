import { describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { hostileAcp, text, type HostileScenario } from "./hostile-agent/hostile.js";

async function turn(scenario: HostileScenario, extra: Parameters<typeof hostileAcp>[1] = {}, request: { model?: string } = {}) {
  const driver = hostileAcp(scenario, extra);
  try {
    return await runDriver(driver, { prompt: "hi", ...request });
  } finally {
    await driver.close();
  }
}
const done = { respond: { stopReason: "end_turn" } };

describe("tool calls, usage and model selection as agents send them (hostile agent)", () => {
  it("the end event carries the input an update sent after an empty first rawInput, and the tool's _meta name (Qwen Code's shape)", async () => {
    const run = await turn({
      "session/prompt": [
        [
          {
            update: {
              sessionUpdate: "tool_call",
              toolCallId: "c1",
              title: "ReadFile",
              kind: "read",
              status: "pending",
              rawInput: {},
              _meta: { toolName: "read_file" },
            },
          },
          {
            update: { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress", rawInput: { absolute_path: "/w/a.txt" } },
          },
          {
            update: {
              sessionUpdate: "tool_call_update",
              toolCallId: "c1",
              status: "completed",
              content: [{ type: "content", content: { type: "text", text: "hello" } }],
            },
          },
          done,
        ],
      ],
    });
    expect(run.recording.ofType("tool-call")).toEqual([
      { type: "tool-call", phase: "start", id: "c1", name: "read_file", kind: "read" },
      { type: "tool-call", phase: "end", id: "c1", name: "read_file", input: { absolute_path: "/w/a.txt" }, kind: "read" },
    ]);
    expect(run.response?.transcript.filter((item) => item.kind === "tool-call")).toEqual([
      { kind: "tool-call", toolCallId: "c1", toolName: "read_file", input: { absolute_path: "/w/a.txt" } },
    ]);
  });

  it("the input of the tool_call survives a completed update without rawInput, and reaches the approval", async () => {
    const call = { toolCallId: "c2", title: "Write a.txt", kind: "edit" };
    const run = await turn({
      "session/prompt": [
        [
          { update: { sessionUpdate: "tool_call", ...call, status: "pending", rawInput: { path: "a.txt", content: "x" } } },
          { permission: call },
          { update: { sessionUpdate: "tool_call_update", toolCallId: "c2", status: "completed" } },
          done,
        ],
      ],
    });
    expect(run.recording.asks.map((ask) => ask.input)).toEqual([{ path: "a.txt", content: "x" }]);
    expect(run.recording.ofType("tool-call").at(-1)).toMatchObject({ phase: "end", input: { path: "a.txt", content: "x" } });
  });

  it("a call first named by its title takes the real name a later update carries", async () => {
    const run = await turn({
      "session/prompt": [
        [
          { update: { sessionUpdate: "tool_call", toolCallId: "c3", title: "Shell: ls", status: "pending" } },
          {
            update: {
              sessionUpdate: "tool_call_update",
              toolCallId: "c3",
              status: "in_progress",
              rawInput: { command: "ls" },
              _meta: { toolName: "run_shell_command" },
            },
          },
          done,
        ],
      ],
    });
    expect(run.recording.ofType("tool-call").at(-1)).toEqual({
      type: "tool-call",
      phase: "end",
      id: "c3",
      name: "run_shell_command",
      input: { command: "ls" },
    });
  });

  it("usage from the prompt answer's _meta and cost from usage_update reach the response", async () => {
    const usageUpdate = (amount: number) => ({
      update: { sessionUpdate: "usage_update", used: 1200, size: 200000, cost: { amount, currency: "USD" } },
    });
    const run = await turn({
      "session/prompt": [
        [
          text("ok"),
          usageUpdate(0.25),
          { respond: { stopReason: "end_turn", _meta: { usage: { input_tokens: 120, output_tokens: 7, cache_read_input_tokens: 100 } } } },
        ],
      ],
    });
    expect(run.response?.usage).toEqual({ inputTokens: 120, outputTokens: 7, cacheReadTokens: 100 });
    expect(run.response?.costUsd).toBe(0.25);
    expect(run.response?.checkpoint).toEqual({ resumeId: "hostile-session", data: { sessionCostUsd: 0.25 } });
  });

  const MODELS = {
    currentModelId: "m-small",
    availableModels: [
      { modelId: "m-small", name: "Small" },
      { modelId: "m-large", name: "Large" },
    ],
  };
  it("model: set with session/set_model when the agent lists it", async () => {
    const run = await turn(
      {
        "session/new": [{ respond: { sessionId: "hostile-session", models: MODELS } }],
        "session/set_model": [{ stderrParams: true }, { respond: {} }],
        "session/prompt": [[text("ok"), done]],
      },
      {},
      { model: "m-large" },
    );
    expect(run.error).toBeUndefined();
    expect(run.response?.model).toBe("m-large");
    const stderr = run.recording
      .ofType("process")
      .flatMap((p) => (p.kind === "stderr" ? [p.text ?? ""] : []))
      .join("");
    expect(JSON.parse(stderr)).toEqual({ method: "session/set_model", params: { sessionId: "hostile-session", modelId: "m-large" } });
  });

  it("model: one the agent does not offer is refused with a DriverError INVALID naming what it offers", async () => {
    const run = await turn({ "session/new": [{ respond: { sessionId: "hostile-session", models: MODELS } }] }, {}, { model: "m-huge" });
    const error = findError(run.error, DriverError);
    expect([error?.code, error?.op]).toEqual([ErrCode.Invalid, "model selection"]);
    expect(String(error?.cause)).toContain('"m-small", "m-large"');
  });

  it("model: an agent that offers no model selection refuses the model with a DriverError INVALID", async () => {
    const run = await turn({}, {}, { model: "m-large" });
    expect(findError(run.error, DriverError)?.code).toBe(ErrCode.Invalid);
  });
});
