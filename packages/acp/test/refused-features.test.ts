import { describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, ErrFeatureUnsupported, FeatureUnsupportedError, findError, isError, type AgentEvent } from "adaptor";
import { DriverError, ErrCode } from "@adaptor/errors";
import { acp } from "../src/index.js";

// What ACP cannot carry is refused before launch: the protocol has no system prompt and no
// subagent definitions, so a run that asks for one fails with FeatureUnsupportedError and no agent process starts (the command below
// does not exist: a spawn would fail with NOT_FOUND instead).

describe("ACP refuses what its protocol cannot carry", () => {
  it("a system prompt (replace or append) is refused with FeatureUnsupportedError before any process starts", async () => {
    await using agent = new Agent(acp({ command: "adaptor-no-such-acp-agent" }));
    for (const systemPrompt of ["You are a bot.", { append: "Be brief." }]) {
      const events: AgentEvent[] = [];
      const stream = agent.stream("hi", { systemPrompt });
      for await (const event of stream) events.push(event);
      const refused = await stream.result().catch((e: unknown) => e);
      expect(isError(refused, ErrFeatureUnsupported)).toBe(true);
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature: "systemPrompt" });
      expect(events.some((e) => e.type === "process")).toBe(false);
    }
  });

  it("subagent definitions are refused with FeatureUnsupportedError before any process starts", async () => {
    await using agent = new Agent(acp({ command: "adaptor-no-such-acp-agent" }));
    const refused = await agent
      .run("hi", { agents: { reviewer: { description: "Reviews", prompt: "You review." } } })
      .catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature: "agents" });
  });

  it.each([
    ["allowedTools", { allowedTools: ["Bash"] }],
    ["disallowedTools", { disallowedTools: ["Bash"] }],
    ["additionalDirectories", { additionalDirectories: ["/tmp"] }],
    ["effort", { effort: "high" }],
    ["planMode", { planMode: true }],
  ] as const)("%s is refused with FeatureUnsupportedError before any process starts", async (feature, options) => {
    await using agent = new Agent(acp({ command: "adaptor-no-such-acp-agent" }));
    const refused = await agent.run("hi", options).catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature });
  });

  it("turn and cost budgets are refused (no per-response event, no cost)", async () => {
    await using agent = new Agent(acp({ command: "adaptor-no-such-acp-agent" }));
    for (const [budget, feature] of [
      [{ maxTurns: 2 }, "budget.maxTurns"],
      [{ maxCostUsd: 1 }, "budget.maxCostUsd"],
    ] as const) {
      const refused = await agent.run("hi", { budget }).catch((e: unknown) => e);
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature });
    }
  });

  it("a tool-call budget is refused before launch unless the run puts the agent in its ask mode (a call the agent does not ask about may run first)", async () => {
    await using plain = new Agent(acp({ command: "adaptor-no-such-acp-agent" }));
    const refused = await plain.run("hi", { budget: { maxToolCalls: 2 } }).catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature: "budget.maxToolCalls" });
    await using asking = new Agent(acp({ command: "adaptor-no-such-acp-agent", askMode: "ask", sandboxModes: { read_only: "plan" } }));
    for (const policy of [undefined, { sandbox: "read_only" as const }]) {
      const unheld = await asking.run("hi", { budget: { maxToolCalls: 2 }, ...(policy ? { policy } : {}) }).catch((e: unknown) => e);
      expect(findError(unheld, FeatureUnsupportedError)).toMatchObject({ feature: "budget.maxToolCalls" });
    }
    // Accepted in the ask mode: the run gets as far as starting the (missing) agent.
    for (const permission of ["ask", "auto_approve", "auto_deny"] as const) {
      const started = await asking
        .run("hi", { budget: { maxToolCalls: 2 }, policy: { approvals: { permission } } })
        .catch((e: unknown) => e);
      expect(findError(started, FeatureUnsupportedError)).toBeUndefined();
      expect(findError(started, DriverError)?.code).toBe(ErrCode.NotFound);
    }
  });

  it("send, setModel and setApprovalMode during a turn are refused with FeatureUnsupportedError (interrupt is session/cancel: turn-control.test.ts)", async () => {
    await using agent = new Agent(acp({ command: "adaptor-no-such-acp-agent" }));
    const stream = agent.stream("hi");
    for (const [feature, call] of [
      ["send", () => stream.send("more")],
      ["setModel", () => stream.setModel("m")],
      ["setApprovalMode", () => stream.setApprovalMode({ permission: "ask" })],
    ] as const) {
      const refused = await call().catch((e: unknown) => e);
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature });
    }
    await stream.result().catch(() => undefined);
  });

  it("file checkpoints are refused with FeatureUnsupportedError before any process starts (a session cannot start from an earlier checkpoint)", async () => {
    const root = await mkdtemp(join(tmpdir(), "adaptor-acp-files-"));
    try {
      await using agent = new Agent(acp({ command: "adaptor-no-such-acp-agent" }), {
        threadStore: new MemoryThreadStore(),
        cwd: root,
        checkpointFiles: { dir: join(tmpdir(), "adaptor-acp-files-never-made") },
      });
      const events: AgentEvent[] = [];
      const stream = agent.thread("t").stream("hi");
      for await (const event of stream) events.push(event);
      const refused = await stream.result().catch((e: unknown) => e);
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature: "checkpointFiles" });
      expect(events.some((e) => e.type === "process")).toBe(false);
      await expect(agent.thread("t").rewind("any")).rejects.toBeInstanceOf(FeatureUnsupportedError);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
