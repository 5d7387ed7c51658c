import { describe, expect, it } from "vitest";
import { HookRunner } from "./hook-runner.js";

describe("HookRunner", () => {
  it("an observed afterToolCall names a host tool by its own name in every form agents give it, and keeps the agent's name", async () => {
    const seen: { toolName: string; agentToolName: string }[] = [];
    const runner = new HookRunner({
      hooks: { afterToolCall: (call) => void seen.push({ toolName: call.toolName, agentToolName: call.agentToolName }) },
      native: [],
      runId: "r1",
      driver: "scripted",
      hostTools: ["lookup_order"],
      signal: new AbortController().signal,
      onFailure: (error) => {
        throw error;
      },
    });
    // Claude Code and Codex, Gemini CLI, codex-acp's title, a tool the run did not give, a look-alike.
    const names = [
      "mcp__adaptor__lookup_order",
      "mcp_adaptor_lookup_order",
      "Tool: adaptor/lookup_order",
      "Read",
      "mcp__adaptor__lookup_orders",
    ];
    names.forEach((name, i) => {
      runner.observe({ type: "tool-call", phase: "start", id: `t${i}`, name });
      runner.observe({ type: "tool-result", id: `t${i}`, output: "x", isError: false });
    });
    await runner.settled();
    expect(seen).toEqual([
      { toolName: "lookup_order", agentToolName: "mcp__adaptor__lookup_order" },
      { toolName: "lookup_order", agentToolName: "mcp_adaptor_lookup_order" },
      { toolName: "lookup_order", agentToolName: "Tool: adaptor/lookup_order" },
      { toolName: "Read", agentToolName: "Read" },
      { toolName: "mcp__adaptor__lookup_orders", agentToolName: "mcp__adaptor__lookup_orders" },
    ]);
    runner.end();
  });
});
