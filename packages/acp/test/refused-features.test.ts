import { describe, expect, it } from "vitest";
import { Agent, ErrFeatureUnsupported, FeatureUnsupportedError, findError, isError, type AgentEvent } from "adaptor";
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

  it("turn and cost budgets are refused (no per-response event, no cost); a tool-call budget is accepted", async () => {
    await using agent = new Agent(acp({ command: "adaptor-no-such-acp-agent" }));
    for (const [budget, feature] of [
      [{ maxTurns: 2 }, "budget.maxTurns"],
      [{ maxCostUsd: 1 }, "budget.maxCostUsd"],
    ] as const) {
      const refused = await agent.run("hi", { budget }).catch((e: unknown) => e);
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature });
    }
    // Accepted: the run gets as far as starting the (missing) agent.
    const started = await agent.run("hi", { budget: { maxToolCalls: 2 } }).catch((e: unknown) => e);
    expect(findError(started, FeatureUnsupportedError)).toBeUndefined();
  });

  it("a prompt with an image is refused with FeatureUnsupportedError before any process starts", async () => {
    await using agent = new Agent(acp({ command: "adaptor-no-such-acp-agent" }));
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
    const refused = await agent.run([{ type: "image", data: png }, "describe"]).catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature: "images" });
  });
});
