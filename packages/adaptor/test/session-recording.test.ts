// Recording an Agent run with @adaptor/sessionrecorder: the events of a real Stream (text, a tool
// call, an approval answered by the host, the verdict) are teed into a durable JSONL log while the
// host consumes them, and replay yields them in order as JSON (the approval request's public
// fields, never its responder).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { Agent, type AgentEvent } from "adaptor";
import { JsonlEventBackend, SessionRecorder, type RecordedEvent } from "@adaptor/sessionrecorder";
import { fakeDriver } from "./support/fake-driver.js";
import type { Driver } from "@adaptor/driver";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "adaptor-session-recording-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A driver that streams text, calls a tool after asking for permission, and finishes. */
function toolDriver(): Driver {
  const base = fakeDriver(async () => ({}));
  return {
    ...base,
    descriptor: {
      ...base.descriptor,
      capabilities: {
        ...base.descriptor.capabilities,
        approvals: { permission: ["ask", "auto_approve", "auto_deny"], plan_review: [], question: [] },
      },
    },
    async run(request, sink, signal) {
      sink.emit({ type: "text-delta", text: "Let me look." });
      sink.emit({ type: "tool-call", phase: "start", id: "toolu_1", name: "Bash" });
      const decision = await sink.requestApproval({
        kind: "permission",
        title: "Bash: ls",
        toolName: "Bash",
        toolCallId: "toolu_1",
        input: { command: "ls" },
      });
      sink.emit({
        type: "tool-result",
        id: "toolu_1",
        name: "Bash",
        output: decision.outcome === "approve" ? "a.txt" : "denied",
        isError: decision.outcome !== "approve",
      });
      sink.emit({ type: "text-delta", text: " Done." });
      return base.run(request, sink, signal);
    },
  };
}

describe("recording an Agent run", () => {
  it("record(key, agent.stream(...)) stores every event the host saw, and replay yields them in order as JSON", async () => {
    await using agent = new Agent(toolDriver());
    const backend = new JsonlEventBackend({ root: join(dir, "sessions") });
    const recorder = new SessionRecorder<AgentEvent>({ backend });
    const stream = agent.stream("list the files", { onApproval: (request) => request.approve() });
    const seen: AgentEvent[] = [];
    for await (const event of recorder.record("run-ls", stream)) seen.push(event);
    const result = await stream.result();
    expect(result.text).toBe("partial answer");

    const records: RecordedEvent[] = [];
    for await (const record of recorder.replay("run-ls")) records.push(record);
    await backend.close();
    expect(records.map((r) => r.sequence)).toEqual(seen.map((_, i) => i + 1));
    const stored = records.map((r) => r.event as { type: string; meta: { sequence: number; time: string; runId: string } });
    expect(stored.map((e) => e.type)).toEqual(seen.map((e) => e.type));
    expect(stored.map((e) => e.meta.sequence)).toEqual(seen.map((e) => e.meta.sequence));
    expect(stored.map((e) => e.meta.time)).toEqual(seen.map((e) => e.meta.time.toISOString()));
    expect(new Set(stored.map((e) => e.meta.runId))).toEqual(new Set([stream.runId]));
    expect(stored[0]).toMatchObject({ type: "run-started", driver: "fake" });
    expect(stored.at(-1)).toMatchObject({ type: "run-finished", ok: true });
    const approval = stored.find((e) => e.type === "approval-request") as unknown as { request: Record<string, unknown> };
    expect(approval.request).toMatchObject({
      kind: "permission",
      title: "Bash: ls",
      toolName: "Bash",
      toolCallId: "toolu_1",
      input: { command: "ls" },
      attempt: 1,
    });
    expect(typeof approval.request.createdAt).toBe("string");
    expect(Object.keys(approval.request)).not.toContain("responder");
    expect(stored.find((e) => e.type === "tool-result")).toMatchObject({ output: "a.txt", isError: false });
  });

  it("replay types the events by the recorder's event type: a replayed AgentEvent narrows on event.type, its times are strings", async () => {
    await using agent = new Agent(toolDriver());
    const backend = new JsonlEventBackend({ root: join(dir, "typed") });
    const recorder = new SessionRecorder<AgentEvent>({ backend });
    const stream = agent.stream("list the files", { onApproval: (request) => request.approve() });
    for await (const _event of recorder.record("typed", stream)) void _event;
    await stream.result();
    const texts: string[] = [];
    const tools: string[] = [];
    for await (const { event } of recorder.replay("typed")) {
      expectTypeOf(event.meta.time).toEqualTypeOf<string>();
      expectTypeOf(event.meta.sequence).toEqualTypeOf<number>();
      switch (event.type) {
        case "text-delta":
          texts.push(event.text);
          break;
        case "tool-result":
          expectTypeOf(event.isError).toEqualTypeOf<boolean>();
          tools.push(`${event.id}:${event.output}`);
          break;
        case "approval-request":
          expectTypeOf(event.request.createdAt).toEqualTypeOf<string>();
          expect(typeof event.request.createdAt).toBe("string");
          break;
      }
    }
    await backend.close();
    expect(texts.join("")).toBe("Let me look. Done.");
    expect(tools).toEqual(["toolu_1:a.txt"]);
  });
});
