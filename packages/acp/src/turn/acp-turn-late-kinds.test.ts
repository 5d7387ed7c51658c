import { describe, expect, it } from "vitest";
import type * as acp from "@agentclientprotocol/sdk";
import type { ApprovalAsk, ApprovalDecision, DriverSink } from "@adaptor/driver";
import { AcpTurn, type UnaskedCall } from "./acp-turn.js";

const OPTIONS: acp.PermissionOption[] = [
  { optionId: "once", name: "Allow", kind: "allow_once" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
];

function turnWith(trusted: { name: string; tools: string[] }[] = []) {
  const asks: ApprovalAsk[] = [];
  const unasked: UnaskedCall[] = [];
  const sink: DriverSink = {
    emit: () => undefined,
    requestApproval: async (ask: ApprovalAsk): Promise<ApprovalDecision> => {
      asks.push(ask);
      return { outcome: "approve" };
    },
  } as unknown as DriverSink;
  const turn = new AcpTurn(sink, undefined, trusted as never, (call) => unasked.push(call));
  turn.beginPrompt();
  return { turn, asks, unasked, signal: new AbortController().signal };
}

const update = (fields: Record<string, unknown>): acp.SessionUpdate => ({ sessionUpdate: "tool_call_update", ...fields }) as never;
const call = (fields: Record<string, unknown>): acp.SessionUpdate => ({ sessionUpdate: "tool_call", title: "T", ...fields }) as never;

describe("kinds that act given to a call after its ask or its end", () => {
  it("a host tool's ask allowed without the host, then given kind execute and completed, is reported unasked", async () => {
    const { turn, asks, unasked, signal } = turnWith([{ name: "adaptor", tools: ["foo"] }]);
    turn.onUpdate(call({ toolCallId: "g", title: "mcp__adaptor__foo", kind: "other", rawInput: { x: 1 } }));
    const answer = await turn.onPermission(
      { sessionId: "s", toolCall: { toolCallId: "g", title: "mcp__adaptor__foo", kind: "other" }, options: OPTIONS },
      signal,
    );
    expect(answer).toEqual({ outcome: { outcome: "selected", optionId: "once" } });
    expect(asks).toEqual([]);
    turn.onUpdate(update({ toolCallId: "g", kind: "execute", status: "completed" }));
    expect(unasked).toEqual([{ toolCallId: "g", toolName: "mcp__adaptor__foo", toolKind: "execute", status: "completed" }]);
  });

  it("a host tool's ask allowed without the host that stays of kind other is not reported", async () => {
    const { turn, unasked, signal } = turnWith([{ name: "adaptor", tools: ["foo"] }]);
    await turn.onPermission(
      { sessionId: "s", toolCall: { toolCallId: "g", title: "mcp__adaptor__foo", kind: "other", rawInput: { x: 1 } }, options: OPTIONS },
      signal,
    );
    turn.onUpdate(update({ toolCallId: "g", kind: "other", status: "completed" }));
    expect(unasked).toEqual([]);
  });

  it("a kind that acts sent after the call's completed update is checked against that end", async () => {
    const { turn, unasked, signal } = turnWith();
    await turn.onPermission(
      { sessionId: "s", toolCall: { toolCallId: "c", title: "T", kind: "read", rawInput: { p: 1 } }, options: OPTIONS },
      signal,
    );
    turn.onUpdate(update({ toolCallId: "c", status: "completed" }));
    expect(unasked).toEqual([]);
    turn.onUpdate(update({ toolCallId: "c", kind: "execute" }));
    expect(unasked).toEqual([{ toolCallId: "c", toolName: "T", toolKind: "execute", askedAs: "read", status: "completed" }]);
  });

  it("an unasked call announced completed as a read, then given kind execute, is reported once", () => {
    const { turn, unasked } = turnWith();
    turn.onUpdate(call({ toolCallId: "a", kind: "read", status: "completed", rawInput: { p: 1 } }));
    turn.onUpdate(update({ toolCallId: "a", kind: "execute" }));
    turn.onUpdate(update({ toolCallId: "a", kind: "execute" }));
    expect(unasked).toEqual([{ toolCallId: "a", toolName: "T", toolKind: "execute", status: "completed" }]);
  });
});
