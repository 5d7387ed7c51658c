// A host tool's events on the real claude binary (pinned 2.1.332): the CLI reports the call on its
// stdout and calls the Agent's MCP server over HTTP, two paths either of which can reach the SDK
// first. The stream gives the call's `tool-call` before its approval, the tool's notices and its one
// `tool-result` (the host's, under the CLI's tool_use id), on every run.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type AgentEvent } from "adaptor";
import { callThenReport, drainEvents, harness, type Harness } from "./support.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The run's events about tool calls (but argument fragments), approvals and the tool's notices, one line each. */
function toolSequence(events: readonly AgentEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type === "tool-call") return e.phase === "args" ? [] : [`call-${e.phase} ${e.name} ${e.id}`];
    if (e.type === "approval-request") return [`approval ${e.request.toolName} ${e.request.toolCallId}`];
    if (e.type === "tool-result") return [`result ${e.name} ${e.id} ${e.output}`];
    if (e.type === "notice" && e.kind === "lookup.note") return [`notice ${String(e.data?.["toolCallId"])}`];
    return [];
  });
}

describe("claude: a host tool's events", () => {
  it("permission ask, five runs: each gives the call's tool-call, then its approval, the tool's notice and one tool-result (the host's, under the call's id)", async () => {
    const lookup = defineTool({
      name: "lookup",
      description: "Find an order by id",
      input: z.object({ id: z.string() }),
      handler: ({ id }, context) => {
        context.notice("lookup.note");
        return { id, total: 42 };
      },
    });
    h = await harness(callThenReport("LOOKUP", "mcp__adaptor__lookup", { id: "o-17" }), {}, { tools: [lookup] });
    const seen: string[][] = [];
    const expected: string[][] = [];
    for (let run = 0; run < 5; run++) {
      const stream = h.agent.stream("LOOKUP o-17", {
        policy: { approvals: { permission: "ask" } },
        onApproval: (request) => request.approve(),
      });
      const events = await drainEvents(stream);
      await stream.result();
      const call = events.find((e) => e.type === "tool-call");
      const id = call?.type === "tool-call" ? call.id : "no tool-call";
      seen.push(toolSequence(events));
      expected.push([
        `call-start mcp__adaptor__lookup ${id}`,
        `call-end mcp__adaptor__lookup ${id}`,
        `approval lookup ${id}`,
        `notice ${id}`,
        `result lookup ${id} {"id":"o-17","total":42}`,
      ]);
    }
    expect(seen).toEqual(expected);
  });
});
