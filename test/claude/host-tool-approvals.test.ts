// Host tools under the run's permission mode on the real claude binary (pinned 2.1.332): the CLI
// runs the Agent's trusted MCP server's tools without its own can_use_tool ask, and the SDK's
// host-tool server asks the run's approvals instead, so `onApproval` sees the call with the tool's
// own name and arguments, as the Claude Agent SDK's canUseTool sees an in-process MCP tool.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type ApprovalRequest } from "adaptor";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { callThenReport, drainEvents, harness, type Harness } from "./support.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function lookupTool(ran: string[]) {
  return defineTool({
    name: "lookup",
    description: "Find an order by id",
    input: z.object({ id: z.string() }),
    handler: ({ id }) => {
      ran.push(id);
      return { id, total: 42 };
    },
  });
}

describe("host tools follow policy.approvals.permission (real claude binary)", () => {
  it("ask: onApproval sees the host tool's call; a deny keeps the handler from running and the model reads the denial", async () => {
    const ran: string[] = [];
    const asked: ApprovalRequest[] = [];
    h = await harness(callThenReport("LOOKUP", "mcp__adaptor__lookup", { id: "o-17" }), {}, { tools: [lookupTool(ran)] });
    const stream = h.agent.stream("LOOKUP o-17", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(request);
        request.deny("orders are off limits");
      },
    });
    const events = await drainEvents(stream);
    const result = await stream.result();
    expect(asked.map((r) => [r.kind, r.toolName, r.input])).toEqual([["permission", "lookup", { id: "o-17" }]]);
    const toolCall = events.find((e) => e.type === "tool-call" && e.name === "mcp__adaptor__lookup");
    expect(asked[0]?.toolCallId).toBe(toolCall?.type === "tool-call" ? toolCall.id : "no tool-call event");
    expect(ran).toEqual([]);
    // The CLI may append a note with the deferred tool's schema after an error result.
    expect(result.text.split("\n")[0]).toBe("mcp__adaptor__lookup error: permission_denied: orders are off limits");
    // The host's denial is the run's, as one of the CLI's own checks would be: under the name the model called.
    expect(result.permissionDenials).toEqual([
      { toolName: "mcp__adaptor__lookup", toolCallId: asked[0]?.toolCallId, input: { id: "o-17" } },
    ]);
  }, 60_000);

  it("auto_deny: permissionDenials lists a refused Bash call and a refused host tool call, once each, in the order they were made", async () => {
    const ran: string[] = [];
    h = await harness(
      [
        { when: whenUserSays("BOTH"), reply: { toolUse: { name: "Bash", input: { command: "echo hi" } } } },
        { when: whenToolResult("Bash"), reply: { toolUse: { name: "mcp__adaptor__lookup", input: { id: "o-17" } } } },
        { when: whenToolResult("mcp__adaptor__lookup"), reply: { text: "both refused" } },
      ],
      {},
      { tools: [lookupTool(ran)] },
    );
    const stream = h.agent.stream("BOTH please", { policy: { approvals: { permission: "auto_deny" } } });
    const events = await drainEvents(stream);
    const result = await stream.result();
    expect(result.text).toBe("both refused");
    expect(ran).toEqual([]);
    // A call's tool-call events (its start, then its input) share its id.
    const calls = [
      ...new Map(events.flatMap((e) => (e.type === "tool-call" ? [[e.id, { name: e.name, id: e.id }] as const] : []))).values(),
    ];
    expect(calls.map((call) => call.name)).toEqual(["Bash", "mcp__adaptor__lookup"]);
    expect(result.permissionDenials).toEqual([
      { toolName: "Bash", toolCallId: calls[0]?.id, input: { command: "echo hi" } },
      { toolName: "mcp__adaptor__lookup", toolCallId: calls[1]?.id, input: { id: "o-17" } },
    ]);
  }, 90_000);

  it("hooks name a host tool as approvals do (its own name), with the agent's name in agentToolName", async () => {
    const ran: string[] = [];
    const named: string[][] = [];
    h = await harness(callThenReport("LOOKUP", "mcp__adaptor__lookup", { id: "o-17" }), {}, { tools: [lookupTool(ran)] });
    await h.agent.run("LOOKUP o-17", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        named.push(["onApproval", request.toolName ?? ""]);
        request.approve();
      },
      hooks: {
        beforeToolCall: (call) => void named.push(["beforeToolCall", call.toolName, call.agentToolName]),
        afterToolCall: (call) => void named.push(["afterToolCall", call.toolName, call.agentToolName]),
      },
    });
    expect(ran).toEqual(["o-17"]);
    expect(named).toEqual([
      ["beforeToolCall", "lookup", "mcp__adaptor__lookup"],
      ["onApproval", "lookup"],
      ["afterToolCall", "lookup", "mcp__adaptor__lookup"],
    ]);
  }, 60_000);

  it("ask: an approve runs the handler with the edited input; inherit runs it without asking, as before", async () => {
    const ran: string[] = [];
    const asked: string[] = [];
    h = await harness(callThenReport("LOOKUP", "mcp__adaptor__lookup", { id: "o-17" }), {}, { tools: [lookupTool(ran)] });
    const stream = h.agent.stream("LOOKUP o-17", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(request.toolName ?? "");
        request.approve({ updatedInput: { id: "o-18" } });
      },
    });
    const events = await drainEvents(stream);
    const edited = await stream.result();
    expect([asked, ran]).toEqual([["lookup"], ["o-18"]]);
    // The host approved the call: the CLI's own run of it, unasked by design, is no approval.unasked.
    expect(events.filter((e) => e.type === "notice" && e.kind === "approval.unasked")).toEqual([]);
    expect(edited.text).toBe('mcp__adaptor__lookup ok: {"id":"o-18","total":42}');
    const inherited = await h.agent.run("LOOKUP o-17", { onApproval: (request) => request.deny("nothing should be asked") });
    expect([asked, ran]).toEqual([["lookup"], ["o-18", "o-17"]]);
    expect(inherited.text).toBe('mcp__adaptor__lookup ok: {"id":"o-17","total":42}');
  }, 90_000);
});
