// A value the agent or model sends (a tool call's input, an approval's input and details, a notice's
// data) may nest any depth: the SDK carries it at most JSON_DEPTH_MAX levels deep, a deeper part
// replaced by a placeholder, so that every consumer of the run (streams, stores, spans, the result)
// can encode it as JSON. A value nested some thousands of levels makes JSON.stringify throw.
import { JSON_DEPTH_MAX, JSON_DEPTH_PLACEHOLDER } from "@adaptor/driver/kit";
import { describe, expect, it } from "vitest";
import type { ApprovalDecision } from "@adaptor/driver";
import { Agent, type AgentEvent, type ApprovalRequest } from "../src/index.js";
import { askCutInDepth, boundedAsk } from "../src/run/bounded-values.js";
import { scriptedDriver } from "./scripted-driver.js";

/** Arrays nested `depth` levels: `[[[…]]]`. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

/** How many levels of arrays `value` nests, and what the innermost holds. */
function depthOf(value: unknown): { depth: number; innermost: unknown } {
  let depth = 0;
  let at = value;
  while (Array.isArray(at)) {
    depth++;
    if (at.length === 0) return { depth, innermost: undefined };
    at = at[0];
  }
  return { depth, innermost: at };
}

const DEEP = 5000;

function hostileDriver(decisions: ApprovalDecision[] = []) {
  return scriptedDriver(async (_request, sink) => {
    sink.emit({ type: "tool-call", phase: "start", id: "t1", name: "Bash" });
    const decision = await sink.requestApproval({
      kind: "permission",
      title: "Bash: ls",
      toolName: "Bash",
      toolCallId: "t1",
      input: { command: "ls", x: nested(DEEP) },
      details: { diff: nested(DEEP) },
    });
    decisions.push(decision);
    sink.emit({ type: "tool-call", phase: "end", id: "t1", name: "Bash", input: { command: "ls", x: nested(DEEP) } });
    sink.emit({ type: "tool-result", id: "t1", name: "Bash", output: "ok", isError: false });
    sink.emit({ type: "notice", kind: "x_custom_update", data: { payload: nested(DEEP) } });
    sink.emit({ type: "tool-call", phase: "end", id: "t2", name: "Read", input: { path: "a", at: nested(JSON_DEPTH_MAX - 1) } });
    return { text: "done" };
  });
}

describe("a value nested deeper than JSON_DEPTH_MAX levels is cut where it enters the SDK", () => {
  it("an approval whose input or details were cut is denied without asking: nobody (handler, rules) can read what the CLI would run", async () => {
    const decisions: ApprovalDecision[] = [];
    const asked: ApprovalRequest[] = [];
    const events: AgentEvent[] = [];
    const stream = new Agent(hostileDriver(decisions)).stream("go", {
      policy: { approvals: { permission: "ask", rules: [{ toolName: "Bash", commandPrefix: "ls", outcome: "approve" }] } },
      onApproval: (request) => {
        asked.push(request);
        request.approve();
      },
    });
    for await (const event of stream) events.push(event);
    await stream.result();
    expect(asked).toHaveLength(0);
    expect(decisions).toHaveLength(1);
    expect(decisions[0]!.outcome).toBe("deny");
    expect((decisions[0] as { reason: string }).reason).toMatch(/nest deeper than 64 levels/);
    const notice = events.find((e) => e.type === "notice" && e.kind === "approval.unreadable");
    expect(notice).toBeDefined();
    expect(() => JSON.stringify(notice)).not.toThrow();
    expect(events.some((e) => e.type === "approval-request")).toBe(false);
  });

  it("boundedAsk cuts an ask's input and details at 64 levels and says so; an ask that fits is returned as it is", () => {
    const fits = { kind: "permission" as const, title: "Read", toolName: "Read", input: { path: "a", at: nested(JSON_DEPTH_MAX - 1) } };
    expect(boundedAsk(fits)).toBe(fits);
    expect(askCutInDepth(fits)).toBe(false);
    const cut = boundedAsk({ ...fits, input: { command: "ls", x: nested(DEEP) }, details: { diff: nested(DEEP) } });
    expect(askCutInDepth(cut)).toBe(true);
    const input = cut.input as { command: string; x: unknown };
    expect(input.command).toBe("ls");
    expect(depthOf(input.x)).toEqual({ depth: JSON_DEPTH_MAX - 1, innermost: JSON_DEPTH_PLACEHOLDER });
    expect(depthOf((cut.details as { diff: unknown }).diff)).toEqual({ depth: JSON_DEPTH_MAX - 1, innermost: JSON_DEPTH_PLACEHOLDER });
  });

  it("tool-call input, notice data, approval input and details: cut at 64 levels, every event and the result encode as JSON", async () => {
    const events: AgentEvent[] = [];
    const stream = new Agent(hostileDriver()).stream("go", { onApproval: (request) => request.approve() });
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.text).toBe("done");
    // Every event and the result encode: before, JSON.stringify threw "Maximum call stack size exceeded".
    for (const event of events) expect(() => JSON.stringify(event)).not.toThrow();
    expect(() => JSON.stringify(result)).not.toThrow();
    // The value itself is level 1: { x: [..] } keeps `x` down to level 64, then the placeholder.
    const call = events.find((e) => e.type === "tool-call" && e.phase === "end" && e.id === "t1");
    const input = (call as { input: { command: string; x: unknown } }).input;
    expect(input.command).toBe("ls");
    expect(depthOf(input.x)).toEqual({ depth: JSON_DEPTH_MAX - 1, innermost: JSON_DEPTH_PLACEHOLDER });
    const notice = events.find((e) => e.type === "notice" && e.kind === "x_custom_update");
    expect(depthOf((notice as unknown as { data: { payload: unknown } }).data.payload)).toEqual({
      depth: JSON_DEPTH_MAX - 1,
      innermost: JSON_DEPTH_PLACEHOLDER,
    });
    // A value that fits (64 levels counting the object) is carried whole.
    const fits = events.find((e) => e.type === "tool-call" && e.phase === "end" && e.id === "t2");
    expect(depthOf((fits as { input: { at: unknown } }).input.at)).toEqual({ depth: JSON_DEPTH_MAX - 1, innermost: undefined });
  });
});
