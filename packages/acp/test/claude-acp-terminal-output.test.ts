import { afterEach, describe, expect, it } from "vitest";
import { Agent, ErrPolicyViolation, isError, RunError, type AgentEvent, type ApprovalRequest } from "adaptor";
import { hostileAcp, text, type HostileScenario, type HostileStep } from "./hostile-agent/hostile.js";

// A Claude Code ACP adapter runs a background command in a host terminal, then reads its output
// (`BashOutput`) or ends it (`KillShell`) without asking: the session/update sequence
// @sudocode-ai/claude-code-acp 0.13.10 sends, played by the scripted agent (fault injection).

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

const done: HostileStep = { respond: { stopReason: "end_turn" } };
/** The adapter's initialize answer: its name makes the host treat it as a Claude Code adapter. */
const claudeInit: HostileStep = {
  respond: {
    protocolVersion: 1,
    agentCapabilities: { loadSession: true },
    agentInfo: { name: "@sudocode-ai/claude-code-acp", version: "0.13.10" },
    authMethods: [],
  },
};
/** A session that starts in the adapter's `default` mode. */
const inDefault: HostileStep = {
  respond: { sessionId: "hostile-session", modes: { currentModeId: "default", availableModes: [{ id: "default", name: "default" }] } },
};
const claudeCall = (toolCallId: string, toolName: string, title: string, rawInput: Record<string, unknown>): HostileStep => ({
  update: {
    sessionUpdate: "tool_call",
    toolCallId,
    title,
    kind: "execute",
    status: "pending",
    rawInput,
    _meta: { claudeCode: { toolName } },
  },
});
const ended = (toolCallId: string, toolName: string, output: string): HostileStep => ({
  update: {
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: "completed",
    content: [{ type: "content", content: { type: "text", text: output } }],
    _meta: { claudeCode: { toolName } },
  },
});

/** `echo hello` in the background: the agent's ask, the host terminal (the host asks too), waited for and released. */
const background: HostileStep[] = [
  claudeCall("bg", "mcp__acp__Bash", "`echo hello`", { command: "echo hello", timeout: 10000, description: "bg", run_in_background: true }),
  { permission: { toolCallId: "bg", title: "`echo hello`", kind: "execute" } },
  { request: "terminal/create", params: { command: "echo hello", env: [{ name: "A", value: "1" }] } },
  { request: "terminal/wait_for_exit", params: { terminalId: "terminal-1" } },
  { request: "terminal/output", params: { terminalId: "terminal-1" } },
  { request: "terminal/release", params: { terminalId: "terminal-1" } },
  ended("bg", "mcp__acp__Bash", "Command started in background with id: terminal-1"),
];

async function turn(
  prompt: readonly HostileStep[],
  init: HostileStep = claudeInit,
): Promise<{ events: AgentEvent[]; asked: string[]; error: unknown }> {
  const scenario: HostileScenario = { initialize: [init], "session/new": [inDefault], "session/prompt": [prompt] };
  agent = new Agent(hostileAcp(scenario, { askMode: "default", hostCapabilities: true }));
  const asked: string[] = [];
  const stream = agent.stream("go", {
    policy: { approvals: { permission: "ask" } },
    onApproval: (request: ApprovalRequest) => {
      asked.push(request.toolName ?? "");
      request.approve();
    },
  });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const error = await stream.result().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  return { events, asked, error };
}

const unaskedNotices = (events: readonly AgentEvent[]): AgentEvent[] =>
  events.filter((event) => event.type === "notice" && event.kind === "approval.unasked");

describe("a Claude Code adapter's unasked read or end of a host terminal the host approved", () => {
  it.each([
    ["mcp__acp__BashOutput", "Tail Logs", { task_id: "terminal-1", block: true, timeout: 5000 }],
    ["mcp__acp__BashOutput", "Tail Logs", { bash_id: "terminal-1" }],
    ["mcp__acp__KillShell", "Kill Process", { shell_id: "terminal-1" }],
    ["BashOutput", "Tail Logs", { bash_id: "terminal-1" }],
    ["KillBash", "Kill Process", { shell_id: "terminal-1" }],
    ["TaskOutput", "Task output", { task_id: "terminal-1" }],
    ["TaskStop", "Stop task", { task_id: "terminal-1" }],
  ])("%s %j is no unasked execution: the run succeeds", async (toolName, title, input) => {
    const run = await turn([
      ...background,
      claudeCall("out", toolName, title, input),
      ended("out", toolName, "Exited with code 0.Final output:\n\nhello\n"),
      text("read output"),
      done,
    ]);
    expect(run.error).toBeUndefined();
    expect(run.asked).toEqual(["mcp__acp__Bash", "terminal/create"]);
    expect(unaskedNotices(run.events)).toEqual([]);
    expect(run.events).toContainEqual(expect.objectContaining({ type: "tool-result", id: "out", isError: false, coveredByAsk: true }));
  });

  it.each([
    ["a terminal the host never created", "mcp__acp__BashOutput", { task_id: "terminal-9" }],
    ["an id under another field", "mcp__acp__BashOutput", { command: "terminal-1" }],
    ["another execute tool naming the terminal", "mcp__acp__Exec", { task_id: "terminal-1" }],
    ["a command beside the terminal's id", "mcp__acp__BashOutput", { task_id: "terminal-1", command: "rm -rf build" }],
    ["a field the tool does not take beside the id", "mcp__acp__KillShell", { shell_id: "terminal-1", args: ["-9", "1"] }],
  ])("%s still fails the run with policy_violation", async (_, toolName, input) => {
    const run = await turn([...background, claudeCall("out", toolName, toolName, input), ended("out", toolName, "x"), text("done"), done]);
    expect(isError(run.error, ErrPolicyViolation)).toBe(true);
    expect((run.error as RunError).details).toMatchObject({
      toolCallId: "out",
      toolName,
      toolKind: "execute",
      fields: ["approvals.permission"],
    });
  });

  it("without a host terminal before it, an unasked BashOutput fails the run with policy_violation", async () => {
    const run = await turn([
      claudeCall("out", "mcp__acp__BashOutput", "Tail Logs", { task_id: "terminal-1" }),
      ended("out", "mcp__acp__BashOutput", "x"),
      done,
    ]);
    expect(isError(run.error, ErrPolicyViolation)).toBe(true);
  });

  it("an agent that is not a Claude Code adapter: its unasked BashOutput of the same terminal fails the run with policy_violation", async () => {
    const other: HostileStep = {
      respond: { protocolVersion: 1, agentCapabilities: { loadSession: true }, agentInfo: { name: "other-acp" }, authMethods: [] },
    };
    const run = await turn(
      [
        ...background,
        claudeCall("out", "mcp__acp__BashOutput", "Tail Logs", { task_id: "terminal-1" }),
        ended("out", "mcp__acp__BashOutput", "x"),
        done,
      ],
      other,
    );
    expect(isError(run.error, ErrPolicyViolation)).toBe(true);
  });
});
