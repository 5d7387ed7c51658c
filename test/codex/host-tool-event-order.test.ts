// A host tool's events on the real codex app-server: codex reports the call (`item/started`, on its
// stdout) and calls the Agent's MCP server (over HTTP) on two paths, so the MCP request can reach the
// SDK first. The stream still gives the call's `tool-call` before its approval, the tool's notices
// and its one `tool-result`, on every run.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { whenPromptSays } from "@adaptor/testkit";
import { Agent, defineTool, type AgentEvent } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The run's events about tool calls, approvals and the tool's own notices, one short line each. */
function toolSequence(events: readonly AgentEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type === "tool-call") return [`call-${e.phase} ${e.name} ${e.id}`];
    if (e.type === "approval-request") return [`approval ${e.request.toolName} ${e.request.toolCallId}`];
    if (e.type === "tool-result") return [`result ${e.name} ${e.id} ${e.output}`];
    if (e.type === "notice" && e.kind === "lookup.note") return [`notice ${String(e.data?.["toolCallId"])}`];
    return [];
  });
}

describe("codex app-server: a host tool's events", () => {
  it("permission ask, five runs: each gives the call's tool-call, then its approval, the tool's notice and one tool-result (the host's, under the call's id)", async () => {
    h = await codexHarness({
      rules: [
        {
          when: whenPromptSays("LOOKUP"),
          reply: { functionCall: { name: "lookup", namespace: "mcp__adaptor", arguments: { word: "codex" } } },
        },
      ],
    });
    const lookup = defineTool({
      name: "lookup",
      description: "Looks up a word",
      input: z.object({ word: z.string() }),
      handler: ({ word }, context) => {
        context.notice("lookup.note");
        return `meaning of ${word}`;
      },
    });
    const agent = new Agent(h.driver, { tools: [lookup], policy: { sandbox: "unrestricted", approvals: { permission: "ask" } } });
    const seen: string[][] = [];
    const expected: string[][] = [];
    try {
      for (let run = 0; run < 5; run++) {
        const stream = agent.stream("LOOKUP please", { onApproval: (request) => request.approve() });
        const events: AgentEvent[] = [];
        for await (const event of stream) events.push(event);
        await stream.result();
        const call = events.find((e) => e.type === "tool-call");
        const id = call?.type === "tool-call" ? call.id : "no tool-call";
        seen.push(toolSequence(events));
        expected.push([
          `call-start mcp__adaptor__lookup ${id}`,
          `call-end mcp__adaptor__lookup ${id}`,
          `approval lookup ${id}`,
          `notice ${id}`,
          `result lookup ${id} meaning of codex`,
        ]);
      }
    } finally {
      await agent.close();
    }
    expect(seen).toEqual(expected);
  });
});
