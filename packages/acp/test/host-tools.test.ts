import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { whenPromptSays, whenUserSays } from "@adaptor/testkit";
import { defineTool, type Result } from "adaptor";
import { claudeAcpHarness, codexAcpHarness, collect, geminiHarness } from "./support.js";

// Host tools reach each ACP agent through the Agent's MCP server (Streamable HTTP on 127.0.0.1),
// and calls to them are allowed without asking the host: the host defined them.

const calls: string[] = [];
const lookup = defineTool({
  name: "lookup",
  description: "Looks up a word",
  input: z.object({ word: z.string() }),
  handler: async ({ word }) => {
    calls.push(word);
    return { meaning: `meaning of ${word}` };
  },
});

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
  calls.length = 0;
});

async function runUnasked(agent: {
  stream(prompt: string): AsyncIterable<{ type: string }> & { result(): Promise<Result> };
}): Promise<Result> {
  const stream = agent.stream("LOOKUP acp");
  const events = (await collect(stream as never)) as { type: string; id?: string; name?: string; phase?: string }[];
  expect(events.filter((e) => e.type === "approval-request")).toEqual([]);
  // The host's tool-result is the call's one result (the agent's own is folded into it), under the
  // id of its tool-call event, which comes first.
  const callIds = events.filter((e) => e.type === "tool-call" && e.phase === "start").map((e) => e.id);
  const results = events.filter((e) => e.type === "tool-result");
  expect(callIds).toHaveLength(1);
  expect(results.map((e) => [e.name, e.id])).toEqual([["lookup", callIds[0]]]);
  expect(events.findIndex((e) => e.type === "tool-call")).toBeLessThan(events.indexOf(results[0]!));
  return stream.result();
}

describe("host tools through the Agent's MCP server on real ACP agents", () => {
  it("gemini-cli (workspaceSettings: untrusted, it drops every MCP server): mcp_adaptor_lookup runs unasked, its value reaches the model, its one tool-result (the host's) carries the tool-call's id", async () => {
    const h = await geminiHarness(
      [
        {
          when: (view) => view.method === "stream" && view.lastUserText.includes("LOOKUP"),
          reply: { functionCall: { name: "mcp_adaptor_lookup", args: { word: "acp" } } },
        },
      ],
      { workspaceSettings: true },
      { tools: [lookup] },
    );
    close = h.close;
    const result = await runUnasked(h.agent);
    expect(calls).toEqual(["acp"]);
    expect(h.server.turns().at(-1)?.view.lastFunctionResponse?.output).toContain("meaning of acp");
    expect(result.text).toContain("meaning of acp");
  });

  it("claude-code-acp: mcp__adaptor__lookup runs unasked, its value reaches the model, its one tool-result (the host's) carries the tool-call's id", async () => {
    const h = await claudeAcpHarness(
      [{ when: whenUserSays("LOOKUP"), reply: { toolUse: { name: "mcp__adaptor__lookup", input: { word: "acp" } } } }],
      { tools: [lookup] },
    );
    close = h.close;
    const result = await runUnasked(h.agent);
    expect(calls).toEqual(["acp"]);
    expect(h.server.requests.at(-1)?.view.lastToolResult?.content).toContain("meaning of acp");
    expect(result.text).toContain("meaning of acp");
  });

  it("codex-acp: the adaptor namespace's lookup runs unasked, its value reaches the model, its one tool-result (the host's) carries the tool-call's id", async () => {
    const h = await codexAcpHarness(
      [
        {
          when: whenPromptSays("LOOKUP"),
          reply: { functionCall: { name: "lookup", namespace: "mcp__adaptor", arguments: { word: "acp" } } },
        },
      ],
      { tools: [lookup] },
    );
    close = h.close;
    const result = await runUnasked(h.agent);
    expect(calls).toEqual(["acp"]);
    expect(h.server.responses().at(-1)?.view.lastToolOutput?.output).toContain("meaning of acp");
    expect(result.text).toContain("meaning of acp");
  });
});

describe("host tools under the SDK's approval gate on real ACP agents", () => {
  it("claude-code-acp, a tool with needsApproval: true: onApproval sees the call once; a deny keeps the handler from running and the model reads it", async () => {
    const gated = defineTool({
      name: "lookup",
      description: "Looks up a word",
      input: z.object({ word: z.string() }),
      needsApproval: true,
      handler: ({ word }) => {
        calls.push(word);
        return "never";
      },
    });
    const h = await claudeAcpHarness(
      [{ when: whenUserSays("LOOKUP"), reply: { toolUse: { name: "mcp__adaptor__lookup", input: { word: "acp" } } } }],
      { tools: [gated] },
    );
    close = h.close;
    const asked: [string | undefined, unknown][] = [];
    const stream = h.agent.stream("LOOKUP acp", {
      onApproval: (request) => {
        asked.push([request.toolName, request.input]);
        request.deny("words are off limits");
      },
    });
    await collect(stream as never);
    await stream.result();
    expect(asked).toEqual([["lookup", { word: "acp" }]]);
    expect(calls).toEqual([]);
    expect(h.server.requests.at(-1)?.view.lastToolResult?.content).toContain("permission_denied: words are off limits");
  });
});
