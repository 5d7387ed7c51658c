import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays, type ScriptRule } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { claude } from "@adaptor/claude";
import { drainEvents, harness, type Harness } from "./support.js";

// The `agents` run option on the real claude binary: the model delegates to a subagent defined
// for the run (its Agent tool with `subagent_type`), the subagent's own model request carries the
// definition's prompt as its system prompt, and the delegation runs in the foreground: the
// subagent's answer is the Agent call's tool result, which the parent model reads in the same turn.
// (claude-code 2.1.332 would launch it in the background by default, "Async agent launched", and
// the answer would reach neither the parent nor the host.)

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const REVIEWER = {
  "release-reviewer": { description: "Reviews release notes for tone", prompt: "You are the release reviewer. Judge tone only." },
};
const AUTO = { policy: { approvals: { permission: "auto_approve" as const } } };

/** The delegation (with the model's own `run_in_background`, if any), the subagent's answer, and the parent's answer quoting its tool result. */
function delegationRules(runInBackground?: boolean): ScriptRule[] {
  return [
    {
      name: "delegate",
      when: whenUserSays("delegate the review"),
      reply: {
        toolUse: {
          name: "Agent",
          input: {
            description: "review notes",
            prompt: "check the tone of NOTES.md",
            subagent_type: "release-reviewer",
            ...(runInBackground === undefined ? {} : { run_in_background: runInBackground }),
          },
        },
      },
    },
    { name: "subagent", when: whenUserSays("check the tone of NOTES.md"), reply: { text: "SUBAGENT-VERDICT: the tone is fine" } },
    {
      name: "parent",
      when: whenToolResult("Agent"),
      reply: (view) => ({ text: `the reviewer answered: ${String(view.lastToolResult?.content)}` }),
    },
  ];
}

describe("subagent definitions (real binary)", { timeout: 180_000 }, () => {
  it("a subagent defined for the run is delegated to, with its prompt as the subagent's system prompt", async () => {
    h = await harness(delegationRules());
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
    await agent.run("delegate the review", { agents: REVIEWER, ...AUTO });
    const subagentCall = h.server.requests.find((r) => r.rule === "subagent");
    expect(subagentCall?.view.system).toContain("You are the release reviewer. Judge tone only.");
  });

  for (const runInBackground of [undefined, true]) {
    it(`a delegation returns the subagent's answer to the parent model within the turn (run_in_background: ${String(runInBackground)})`, async () => {
      h = await harness(delegationRules(runInBackground));
      agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
      const stream = agent.stream("delegate the review", { agents: REVIEWER, ...AUTO });
      const events = await drainEvents(stream);
      const result = await stream.result();
      // The subagent ran before the parent's next request, whose tool result is the subagent's answer.
      expect(h.server.requests.map((r) => r.rule)).toEqual(["delegate", "subagent", "parent"]);
      const toolResult = h.server.requests[2]!.view.lastToolResult;
      expect(toolResult).toMatchObject({ toolName: "Agent", isError: false });
      expect(String(toolResult?.content)).toContain("SUBAGENT-VERDICT: the tone is fine");
      expect(String(toolResult?.content)).not.toContain("Async agent launched");
      expect(result.text).toContain("SUBAGENT-VERDICT: the tone is fine");
      // The host sees the delegation as the Agent call, the task's notices, and its tool result.
      const call = events.find((e) => e.type === "tool-call" && e.phase === "end");
      expect(call).toMatchObject({ name: "Agent", input: { subagent_type: "release-reviewer" } });
      const started = events.find((e) => e.type === "notice" && e.message === "task_started");
      expect(started).toMatchObject({ data: { task_type: "local_agent", subagent_type: "release-reviewer", is_backgrounded: false } });
      const hostResult = events.find((e) => e.type === "tool-result");
      expect(hostResult).toMatchObject({ name: "Agent", isError: false });
      expect(String((hostResult as { output: unknown }).output)).toContain("SUBAGENT-VERDICT: the tone is fine");
      // In the transcript: the call, its result, the parent's answer; the subagent's prompt is in the call's input, not a user item.
      expect(result.transcript().map((item) => item.kind)).toEqual(["tool-call", "tool-result", "assistant"]);
      expect(result.transcript()[1]).toMatchObject({ kind: "tool-result", toolName: "Agent", isError: false });
    });
  }

  it("a subagent's tool calls name the delegation as parentToolCallId in events, approvals and hooks; a delegation the model calls Task (the CLI's older name) is Agent everywhere", async () => {
    h = await harness([
      {
        name: "delegate",
        when: (view) => view.lastUserText.includes("delegate the review") && view.lastToolResult === undefined,
        reply: {
          toolUse: { name: "Task", input: { description: "review notes", prompt: "SUBTASK run it", subagent_type: "release-reviewer" } },
        },
      },
      {
        name: "sub-bash",
        when: (view) => view.firstUserText.includes("SUBTASK run it") && view.lastToolResult === undefined,
        reply: { toolUse: { name: "Bash", input: { command: "touch SUBAGENT_RAN", description: "mark" } } },
      },
    ]);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
    const approvals: [string | undefined, string | undefined][] = [];
    const hooks: string[] = [];
    const stream = agent.stream("delegate the review", {
      agents: REVIEWER,
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        approvals.push([request.toolName, request.parentToolCallId]);
        request.approve();
      },
      hooks: {
        beforeToolCall: (call) => void hooks.push(`before ${call.toolName} ${String(call.parentToolCallId)}`),
        afterToolCall: (call) => void hooks.push(`after ${call.toolName} ${String(call.parentToolCallId)}`),
      },
    });
    const events = await drainEvents(stream);
    await stream.result();
    const calls = events.flatMap((e) => (e.type === "tool-call" && e.phase === "end" ? [e] : []));
    expect(calls.map((e) => [e.name, e.parentToolCallId])).toEqual([
      ["Agent", undefined],
      ["Bash", calls[0]!.id],
    ]);
    const delegation = calls[0]!.id;
    const results = events.flatMap((e) => (e.type === "tool-result" ? [e] : []));
    expect(results.map((e) => [e.name, e.parentToolCallId])).toEqual([
      ["Bash", delegation],
      ["Agent", undefined],
    ]);
    expect(approvals).toEqual([
      ["Agent", undefined],
      ["Bash", delegation],
    ]);
    expect(hooks).toEqual(["before Agent undefined", `before Bash ${delegation}`, `after Bash ${delegation}`, "after Agent undefined"]);
  });

  it("under auto_approve a subagent's tool call reaches beforeToolCall with the delegation as parentToolCallId, though the hook comes before the call's own line", async () => {
    h = await harness([
      {
        name: "delegate",
        when: (view) => view.lastUserText.includes("delegate the review") && view.lastToolResult === undefined,
        reply: {
          toolUse: { name: "Agent", input: { description: "review notes", prompt: "SUBTASK run it", subagent_type: "release-reviewer" } },
        },
      },
      {
        name: "sub-bash",
        when: (view) => view.firstUserText.includes("SUBTASK run it") && view.lastToolResult === undefined,
        reply: { toolUse: { name: "Bash", input: { command: "touch SUBAGENT_RAN", description: "mark" } } },
      },
    ]);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
    const hooks: string[] = [];
    const stream = agent.stream("delegate the review", {
      agents: REVIEWER,
      ...AUTO,
      hooks: {
        beforeToolCall: (call) => void hooks.push(`before ${call.toolName} ${String(call.parentToolCallId)}`),
        afterToolCall: (call) => void hooks.push(`after ${call.toolName} ${String(call.parentToolCallId)}`),
      },
    });
    const events = await drainEvents(stream);
    await stream.result();
    const delegation = events.flatMap((e) => (e.type === "tool-call" && e.phase === "end" && e.name === "Agent" ? [e.id] : []))[0];
    expect(hooks).toEqual(["before Agent undefined", `before Bash ${delegation}`, `after Bash ${delegation}`, "after Agent undefined"]);
  });

  it("a delegation the host denies is Agent in result.permissionDenials too, as on its tool-call event and approval (the CLI's list says Task)", async () => {
    h = await harness(delegationRules());
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
    const asked: (string | undefined)[] = [];
    const stream = agent.stream("delegate the review", {
      agents: REVIEWER,
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(request.toolName);
        request.deny("no delegation");
      },
    });
    const events = await drainEvents(stream);
    const result = await stream.result();
    const call = events.find((e) => e.type === "tool-call" && e.phase === "end");
    expect(call).toMatchObject({ name: "Agent" });
    expect(asked).toEqual(["Agent"]);
    expect(result.permissionDenials).toEqual([
      {
        toolName: "Agent",
        toolCallId: call?.type === "tool-call" ? call.id : "",
        input: expect.objectContaining({ subagent_type: "release-reviewer" }),
      },
    ]);
    expect(h.server.requests.map((r) => r.rule)).toEqual(["delegate", "parent"]);
  });

  it("a host's beforeToolCall edit of the delegation keeps it in the foreground", async () => {
    h = await harness(delegationRules());
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
    const result = await agent.run("delegate the review", {
      agents: REVIEWER,
      ...AUTO,
      hooks: {
        beforeToolCall: (call) =>
          call.toolName === "Agent" ? { updatedInput: { ...(call.input as object), run_in_background: true } } : undefined,
      },
    });
    expect(h.server.requests.map((r) => r.rule)).toEqual(["delegate", "subagent", "parent"]);
    expect(result.text).toContain("SUBAGENT-VERDICT: the tone is fine");
  });

  it("a host's approval that edits the delegation keeps it in the foreground", async () => {
    h = await harness(delegationRules());
    const asked: string[] = [];
    // The CLI runs the Agent tool unasked; askForEveryTool makes it ask the host.
    agent = new Agent(
      claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5", askForEveryTool: true }),
      {
        onApproval: (request) => {
          asked.push(String(request.toolName));
          request.approve({ updatedInput: { ...(request.input as object), run_in_background: true } });
        },
      },
    );
    const result = await agent.run("delegate the review", { agents: REVIEWER });
    expect(asked).toEqual(["Agent"]);
    expect(h.server.requests.map((r) => r.rule)).toEqual(["delegate", "subagent", "parent"]);
    expect(result.text).toContain("SUBAGENT-VERDICT: the tone is fine");
  });

  for (const spawn of [false, true]) {
    it(`the thread turn after a delegation answers its own prompt (${spawn ? "resumed" : "reused"} process)`, async () => {
      h = await harness([
        ...delegationRules(),
        { name: "second", when: whenUserSays("SECOND-PROMPT"), reply: { text: "ANSWER-TO-SECOND" } },
      ]);
      const driver = claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
      agent = new Agent(driver, { threadStore: new MemoryThreadStore() });
      const thread = agent.thread("review");
      const first = await thread.run("delegate the review", { agents: REVIEWER, ...AUTO });
      expect(first.text).toContain("SUBAGENT-VERDICT");
      const stream = thread.stream("SECOND-PROMPT: what did the reviewer say?", {
        agents: REVIEWER,
        ...AUTO,
        ...(spawn ? { spawn: true } : {}),
      });
      const events = await drainEvents(stream);
      const second = await stream.result();
      expect(events.some((e) => e.type === "notice" && e.message === "process reused")).toBe(!spawn);
      expect(second.status).toBe("completed");
      expect(second.text).toBe("ANSWER-TO-SECOND");
      expect(second.usage?.outputTokens).toBeGreaterThan(0);
      expect(h.server.requests.map((r) => r.rule)).toEqual(["delegate", "subagent", "parent", "second"]);
    });
  }
});
