import { describe, expect, it, vi } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { Agent, approveAll, type AgentEvent, type Stream } from "adaptor";
import { claude } from "@adaptor/claude";
import { alive, spawnedPid } from "./support.js";

// Turn boundaries under faults the real binary will not produce on cue, replayed by the fake CLI:
// an earlier turn's late output on a reused process, and a CLI that stays alive (or writes again)
// after its terminal result.

const line = (value: unknown): FakeCliStep => ({ write: JSON.stringify(value) + "\n" });
const init = line({ type: "system", subtype: "init", session_id: "s-1", model: "fake-model" });
const assistant = (uuid: string, text: string): FakeCliStep =>
  line({
    type: "assistant",
    uuid,
    parent_tool_use_id: null,
    session_id: "s-1",
    message: { id: `msg-${uuid}`, content: [{ type: "text", text }] },
  });
const result = (text: string, totalCostUsd: number, inputTokens: number, outputTokens: number): FakeCliStep =>
  line({
    type: "result",
    subtype: "success",
    is_error: false,
    result: text,
    session_id: "s-1",
    total_cost_usd: totalCostUsd,
    usage: { input_tokens: inputTokens, output_tokens: outputTokens },
  });

const FIRST_MESSAGE = "00000000-0000-4000-8000-000000000001";
const LATE_MESSAGE = "00000000-0000-4000-8000-000000000002";
const SECOND_MESSAGE = "00000000-0000-4000-8000-000000000003";

async function drain(stream: Stream): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("turn isolation on a reused process (fake CLI)", () => {
  it("late output of turn 1 after its result (deltas, tool call, usage, approval request) never reaches turn 2", async () => {
    const steps: FakeCliStep[] = [
      { awaitStdinLine: true }, // the initialize control request (the Agent tool's hook)
      { awaitStdinLine: true }, // turn 1's prompt
      init,
      assistant(FIRST_MESSAGE, "one"),
      result("one", 0.5, 10, 1),
      // Turn 1's late output, after its result.
      line({ type: "stream_event", event: { type: "message_start", message: { id: "msg-late" } } }),
      line({ type: "stream_event", event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "LATE TEXT" } } }),
      line({
        type: "assistant",
        uuid: LATE_MESSAGE,
        parent_tool_use_id: null,
        message: { id: "msg-late", content: [{ type: "tool_use", id: "toolu_late", name: "Bash", input: { command: "rm -rf /tmp/x" } }] },
      }),
      line({
        type: "control_request",
        request_id: "late-approval",
        request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "rm -rf /tmp/x" }, tool_use_id: "toolu_late" },
      }),
      result("late second result", 9, 999, 999),
      { awaitStdinLine: true }, // turn 2's prompt
      { echoStdinLine: true }, // the driver's answer to the late approval request
      init,
      assistant(SECOND_MESSAGE, "two"),
      result("two", 0.8, 20, 2),
      { hang: true },
    ];
    const onApproval = vi.fn(approveAll());
    const agent = new Agent(claude({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300 }), {
      // The fake CLI writes no transcript, so there is no session state to carry between hosts.
      threadStore: new MemoryThreadStore({ sessionState: false }),
      onApproval,
    });
    try {
      const thread = agent.thread("isolated");
      const first = await thread.run("first");
      expect(first.text).toBe("one");
      const second = thread.stream("second");
      const events = await drain(second);
      const res = await second.result();
      expect(events.some((e) => e.type === "notice" && e.message === "process reused")).toBe(true);
      expect(res.text).toBe("two");
      expect(res.usage).toEqual({ inputTokens: 20, outputTokens: 2 });
      expect(res.costUsd).toBeCloseTo(0.3, 10); // 0.8 running total − 0.5 after turn 1 on this process
      expect(events.filter((e) => e.type === "text-delta").map((e) => (e as { text: string }).text)).toEqual(["two"]);
      expect(events.some((e) => e.type === "tool-call" || e.type === "approval-request")).toBe(false);
      expect(res.transcript().some((item) => item.kind === "tool-call")).toBe(false);
      expect(onApproval).not.toHaveBeenCalled();
      expect(events).toContainEqual(
        expect.objectContaining({ type: "notice", kind: "approval.late", data: { toolName: "Bash", toolCallId: "toolu_late" } }),
      );
      // Everything before turn 2's init is turn 1's (the fake's echo of the deny answer included).
      const dropped = { stream_event: 2, assistant: 1, result: 1, echo: 1 };
      expect(events).toContainEqual(
        expect.objectContaining({ type: "notice", message: "output from an earlier turn dropped", data: { lines: dropped } }),
      );
      // The CLI got its answer at once: a deny for the late request.
      const echoed = res
        .raw()
        .stdout.split("\n")
        .find((l) => l.includes('"type":"echo"'));
      expect(JSON.parse(echoed ?? "{}")).toMatchObject({
        line: { type: "control_response", response: { request_id: "late-approval", response: { behavior: "deny" } } },
      });
      expect((await thread.checkpoint())?.checkpoint).toMatchObject({ resumeId: "s-1", data: { lastMessageId: SECOND_MESSAGE } });
    } finally {
      await agent.close();
    }
  });
});

describe("a turn the CLI runs by itself (fake CLI)", () => {
  it("a result with an origin and no prompt tag (a task notification's turn) is not the verdict; the prompt's result is", async () => {
    const agent = new Agent(
      claude({
        command: fakeCliPath,
        env: fakeCliEnv([
          { awaitStdinLine: true },
          init,
          line({
            type: "result",
            subtype: "success",
            is_error: false,
            result: "",
            num_turns: 0,
            session_id: "s-1",
            origin: { kind: "task-notification" },
          }),
          init,
          assistant(FIRST_MESSAGE, "the answer"),
          result("the answer", 0.2, 5, 3),
          { hang: true },
        ]),
        killGraceMs: 300,
      }),
    );
    try {
      const stream = agent.stream("hi");
      const events = await drain(stream);
      const res = await stream.result();
      expect(res.text).toBe("the answer");
      expect(res.usage).toEqual({ inputTokens: 5, outputTokens: 3 });
      expect(events).toContainEqual(
        expect.objectContaining({ type: "notice", message: "output from an earlier turn dropped", data: { lines: { result: 1 } } }),
      );
    } finally {
      await agent.close();
    }
  });
});

describe("terminal means terminal (fake CLI)", () => {
  it("result then stdout kept open: the verdict is the result, the process is ended and gone", async () => {
    const agent = new Agent(
      claude({
        command: fakeCliPath,
        env: fakeCliEnv([{ awaitStdinLine: true }, init, result("done", 0.1, 1, 1), { hang: true }]),
        killGraceMs: 300,
      }),
    );
    try {
      const stream = agent.stream("hi");
      const events = await drain(stream);
      const res = await stream.result();
      expect(res.text).toBe("done");
      expect(res.costUsd).toBe(0.1); // a new session's first result: its running total is its own
      expect(events).toContainEqual(
        expect.objectContaining({ type: "notice", message: "process still running after its result; terminating" }),
      );
      expect(alive(spawnedPid(events)!)).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it("result then stdout kept open, SIGTERM ignored: SIGKILL, still the result as verdict, process gone", async () => {
    const steps: FakeCliStep[] = [{ ignoreSigterm: true }, { awaitStdinLine: true }, init, result("done", 0.1, 1, 1), { hang: true }];
    const agent = new Agent(claude({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300 }));
    try {
      const stream = agent.stream("hi");
      const events = await drain(stream);
      expect((await stream.result()).text).toBe("done");
      expect(alive(spawnedPid(events)!)).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it("two results then stdout kept open: the first decides, the second is a notice, a late approval request is not asked", async () => {
    const onApproval = vi.fn(approveAll());
    const steps: FakeCliStep[] = [
      { awaitStdinLine: true },
      init,
      result("first", 0.1, 1, 1),
      result("second", 0.2, 2, 2),
      line({
        type: "control_request",
        request_id: "after",
        request: { subtype: "can_use_tool", tool_name: "Write", input: {}, tool_use_id: "toolu_9" },
      }),
      { hang: true },
    ];
    const agent = new Agent(claude({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300 }), { onApproval });
    try {
      const stream = agent.stream("hi");
      const events = await drain(stream);
      const res = await stream.result();
      expect(res.text).toBe("first");
      expect(res.usage).toEqual({ inputTokens: 1, outputTokens: 1 });
      expect(events.some((e) => e.type === "notice" && e.message === "second result line ignored")).toBe(true);
      expect(events).toContainEqual(
        expect.objectContaining({ type: "notice", kind: "approval.late", data: { toolName: "Write", toolCallId: "toolu_9" } }),
      );
      expect(onApproval).not.toHaveBeenCalled();
      expect(alive(spawnedPid(events)!)).toBe(false);
    } finally {
      await agent.close();
    }
  });
});
