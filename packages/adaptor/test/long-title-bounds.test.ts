// An ACP agent's title is its own text, and names the tool of an agent that sends no tool name: a
// long one is bounded on the approval request, its events and notices, and the transcript.
import { describe, expect, it } from "vitest";
import type { ApprovalAsk } from "@adaptor/driver";
import { Agent, type AgentEvent, type ApprovalRequest } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

const LONG = "A".repeat(199) + "\u{1F600}" + "B".repeat(100_000);

describe("a tool title longer than the bounds", () => {
  it("is cut on ApprovalRequest.title, the approval-request event, the approval.remembered notice and the transcript's toolName", async () => {
    const ask: ApprovalAsk = {
      kind: "permission",
      title: LONG,
      toolName: LONG,
      input: { path: "/w/f.txt" },
      details: { toolKind: "edit" },
    };
    const driver = scriptedDriver(async (_request, sink) => {
      await sink.requestApproval(ask);
      return { text: "done", transcript: [{ kind: "tool-call", toolCallId: "t1", toolName: LONG, input: {} }] };
    });
    const requests: ApprovalRequest[] = [];
    await using agent = new Agent(driver, {
      onApproval: (request) => (requests.push(request), request.deny("no edits", { remember: { toolName: request.toolName! } })),
    });
    const stream = agent.stream("p", { policy: { approvals: { permission: "ask" } } });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(requests.map((r) => r.title)).toEqual([`${"A".repeat(199)}\u{1F600}${"B".repeat(798)}…`]);
    expect(requests[0]!.title).toHaveLength(1000);
    const asked = events.find((e) => e.type === "approval-request");
    expect(asked && "request" in asked ? asked.request.title : undefined).toBe(requests[0]!.title);
    const remembered = events.find((e) => e.type === "notice" && e.kind === "approval.remembered");
    expect(remembered).toMatchObject({
      message: `${requests[0]!.title}: deny remembered for the run (every ${"A".repeat(199)} call)`,
    });
    expect(result.transcript().map((item) => item.toolName)).toEqual(["A".repeat(199)]);
  });
});
