import { describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { AcpDriver } from "../src/index.js";
import { HOSTILE_AGENT, hostileAcp, text, type HostileScenario } from "./hostile-agent/hostile.js";

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

  it("an ask without a kind (a multiple-choice question: every option allow_once) carries the kind the call's updates gave", async () => {
    // Nanocoder 1.30.0's ask_user: a tool_call of kind other, then an ask whose options are the answers.
    const run = await turn({
      "session/prompt": [
        [
          { update: { sessionUpdate: "tool_call", toolCallId: "q1", title: "ask_user", kind: "other", status: "pending", rawInput: {} } },
          {
            permission: { toolCallId: "q1", title: "Drop the table?" },
            options: [
              { optionId: "answer-0", name: "Yes, drop it", kind: "allow_once" },
              { optionId: "answer-1", name: "No, keep it", kind: "allow_once" },
            ],
          },
          done,
        ],
      ],
    });
    expect(run.recording.asks.map((ask) => ask.details)).toEqual([
      {
        toolKind: "other",
        options: [
          { optionId: "answer-0", name: "Yes, drop it", kind: "allow_once" },
          { optionId: "answer-1", name: "No, keep it", kind: "allow_once" },
        ],
      },
    ]);
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

  // Nanocoder 1.30.0's session/new: a provider option first, then the model option, both of category "model".
  const select = (id: string, values: readonly string[]) => ({
    id,
    name: id,
    category: "model",
    type: "select",
    currentValue: values[0],
    options: values.map((value) => ({ value, name: value })),
  });
  const PROVIDER_THEN_MODEL = [select("provider", ["local"]), select("model", ["m1", "m2"])];
  const setCalls = (run: Awaited<ReturnType<typeof turn>>) =>
    run.recording
      .ofType("process")
      .flatMap((p) => (p.kind === "stderr" ? (p.text ?? "").split("\n").filter((line) => line !== "") : []))
      .map((line) => JSON.parse(line) as unknown);

  it("model: of two options of category model, the one whose id is model is set, not the first", async () => {
    const run = await turn(
      {
        "session/new": [{ respond: { sessionId: "hostile-session", configOptions: PROVIDER_THEN_MODEL } }],
        "session/set_config_option": [{ stderrParams: true }, { respond: { configOptions: [] } }],
        "session/prompt": [[text("ok"), done]],
      },
      {},
      { model: "m2" },
    );
    expect(run.error).toBeUndefined();
    expect(run.response?.model).toBe("m2");
    expect(setCalls(run)).toEqual([
      { method: "session/set_config_option", params: { sessionId: "hostile-session", configId: "model", value: "m2" } },
    ]);
  });

  it("model: a value of another option of category model (a provider) is refused, nothing is set", async () => {
    const run = await turn(
      {
        "session/new": [{ respond: { sessionId: "hostile-session", configOptions: PROVIDER_THEN_MODEL } }],
        "session/set_config_option": [{ stderrParams: true }, { respond: { configOptions: [] } }],
      },
      {},
      { model: "local" },
    );
    const error = findError(run.error, DriverError);
    expect([error?.code, error?.op]).toEqual([ErrCode.Invalid, "model selection"]);
    expect(String(error?.cause)).toContain('does not offer model "local" (its "model" option offers "m1", "m2")');
    expect(setCalls(run)).toEqual([]);
  });

  it("model: of several model options none named model, the one holding the value is set; a value none holds is refused naming each", async () => {
    const options = [select("tier", ["fast", "smart"]), select("engine", ["e1", "e2"])];
    const scenario: HostileScenario = {
      "session/new": [{ respond: { sessionId: "hostile-session", configOptions: options } }],
      "session/set_config_option": [{ stderrParams: true }, { respond: { configOptions: [] } }],
      "session/prompt": [[text("ok"), done]],
    };
    const held = await turn(scenario, {}, { model: "e2" });
    expect(held.error).toBeUndefined();
    expect(setCalls(held)).toEqual([
      { method: "session/set_config_option", params: { sessionId: "hostile-session", configId: "engine", value: "e2" } },
    ]);
    const refused = await turn(scenario, {}, { model: "e3" });
    const error = findError(refused.error, DriverError);
    expect([error?.code, error?.op]).toEqual([ErrCode.Invalid, "model selection"]);
    expect(String(error?.cause)).toContain('tier ("fast", "smart"), engine ("e1", "e2")');
    expect(setCalls(refused)).toEqual([]);
  });

  it("model left to the agent (a preset's inherited session): the first value of the option whose id is model is set, not the provider's", async () => {
    const config = {
      type: "hostile",
      command: process.execPath,
      args: [HOSTILE_AGENT],
      env: {
        HOSTILE_ACP_SCENARIO: JSON.stringify({
          "session/new": [{ respond: { sessionId: "hostile-session", configOptions: PROVIDER_THEN_MODEL } }],
          "session/set_config_option": [{ stderrParams: true }, { respond: { configOptions: [] } }],
          "session/prompt": [[text("ok"), done]],
        }),
      },
      killGraceMs: 1_000,
    };
    const driver = new AcpDriver(config, { resolve: () => config, inheritedSession: () => Promise.resolve({ model: null }) });
    try {
      const run = await runDriver(driver, { prompt: "hi" });
      expect(run.error).toBeUndefined();
      expect(setCalls(run)).toEqual([
        { method: "session/set_config_option", params: { sessionId: "hostile-session", configId: "model", value: "m1" } },
      ]);
    } finally {
      await driver.close();
    }
  });

  it("model: an agent that offers no model selection refuses the model with a DriverError INVALID", async () => {
    const run = await turn({}, {}, { model: "m-large" });
    expect(findError(run.error, DriverError)?.code).toBe(ErrCode.Invalid);
  });
});
