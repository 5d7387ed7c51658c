import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, defineTool, ErrPolicyViolation, isError, RunError, type AgentEvent, type ApprovalRequest, type RunOptions } from "adaptor";
import type { AcpConfig } from "../src/index.js";
import { hostileAcp, text, type HostileScenario, type HostileStep } from "./hostile-agent/hostile.js";
import { policyNotices } from "./support.js";

// Tool calls that act without the agent asking, and asks for tools that act under a name of
// reasoning, against the scripted agent (fault injection); the real agent is in cline.test.ts.

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** A session that starts in `mode` (so the driver need not set it). */
const inMode = (mode: string): HostileStep => ({
  respond: { sessionId: "hostile-session", modes: { currentModeId: mode, availableModes: [{ id: mode, name: mode }] } },
});
const done: HostileStep = { respond: { stopReason: "end_turn" } };
const call = (toolCallId: string, kind: string | undefined, status: string, title = toolCallId): HostileStep => ({
  update: { sessionUpdate: "tool_call", toolCallId, title, ...(kind ? { kind } : {}), status, rawInput: { command: "touch x" } },
});
const status = (toolCallId: string, value: string): HostileStep => ({
  update: { sessionUpdate: "tool_call_update", toolCallId, status: value },
});

/** A host tool: with it the run has the SDK's trusted host-tool server `adaptor`, offering `lookup`. */
const lookup = defineTool({ name: "lookup", description: "Looks a value up.", input: z.object({ id: z.string() }), handler: () => "ok" });
/** An agent that takes MCP over HTTP, so the host tools reach it. */
const withMcp: HostileStep = {
  respond: { protocolVersion: 1, agentCapabilities: { loadSession: true, mcpCapabilities: { http: true } }, authMethods: [] },
};

async function turn(
  prompt: readonly HostileStep[],
  options: RunOptions,
  config: Partial<AcpConfig> = {},
  mode = "default",
  hostTools = false,
): Promise<{ events: AgentEvent[]; asked: string[]; error: unknown; result: unknown }> {
  const scenario: HostileScenario = {
    ...(hostTools ? { initialize: [withMcp] } : {}),
    "session/new": [inMode(mode)],
    "session/prompt": [prompt],
  };
  const driver = hostileAcp(scenario, { askMode: "default", ...(hostTools ? { mcpTransports: ["http"] } : {}), ...config });
  agent = new Agent(driver, hostTools ? { tools: [lookup] } : {});
  const asked: string[] = [];
  const stream = agent.stream("go", {
    onApproval: (request: ApprovalRequest) => {
      asked.push(request.toolName ?? "");
      request.approve();
    },
    ...options,
  });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const outcome = await stream.result().then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error }),
  );
  return { events, asked, ...outcome };
}

const AUTO_DENY: RunOptions = { policy: { approvals: { permission: "auto_deny" } } };
const READ_ONLY: RunOptions = { policy: { sandbox: "read_only" } };

/** A {@link turn} under sandbox read_only in a session mode the config declares read-only (`plan`). */
const declaredReadOnly = (prompt: readonly HostileStep[]): ReturnType<typeof turn> =>
  turn(prompt, READ_ONLY, { sandboxModes: { read_only: "plan" } }, "plan");

describe("read_only denies every ask for a tool that is not a read or search", () => {
  it("an ask for a think-kind tool (a sub-agent under a reasoning label) is denied without reaching the handler", async () => {
    const run = await turn(
      [
        call("spawn", "think", "pending", "spawn_agent"),
        { permission: { toolCallId: "spawn", title: "spawn_agent", kind: "think" } },
        done,
      ],
      { policy: { sandbox: "read_only" } },
    );
    expect(run.error).toBeUndefined();
    expect(run.asked).toEqual([]);
    expect(policyNotices(run.events)).toEqual(["denied without asking: the run's sandbox is read_only; spawn_agent is not a read"]);
    expect(run.events).toContainEqual(expect.objectContaining({ type: "tool-result", id: "spawn", isError: true }));
  });

  it("with a declared read_only session mode too: auto_approve does not approve an execute ask", async () => {
    const run = await turn(
      [
        call("sh", "execute", "pending", "run_commands"),
        { permission: { toolCallId: "sh", title: "run_commands", kind: "execute" } },
        done,
      ],
      { policy: { sandbox: "read_only", approvals: { permission: "auto_approve" } } },
      { sandboxModes: { read_only: "plan" } },
      "plan",
    );
    expect(run.error).toBeUndefined();
    expect(policyNotices(run.events)).toEqual(["denied without asking: the run's sandbox is read_only; run_commands is not a read"]);
    expect(run.events).toContainEqual(expect.objectContaining({ type: "tool-result", id: "sh", isError: true }));
  });

  it("a read-kind ask still reaches the handler", async () => {
    const run = await turn(
      [call("r", "read", "pending", "read_file"), { permission: { toolCallId: "r", title: "read_file", kind: "read" } }, done],
      { policy: { sandbox: "read_only" } },
    );
    expect(run.error).toBeUndefined();
    expect(run.asked).toEqual(["read_file"]);
  });
});

describe("a tool call that acts and runs without an ask fails the run when the policy relies on asks", () => {
  it("read_only through askMode: an unasked execute call ends the turn at once with ErrPolicyViolation, sandbox not enforced", async () => {
    const run = await turn(
      // After the call ran the agent waits for session/cancel; it never answers the prompt itself.
      [
        call("sub", "execute", "pending", "run_commands"),
        status("sub", "in_progress"),
        status("sub", "completed"),
        { awaitCancel: true },
        { hang: true },
      ],
      { policy: { sandbox: "read_only" } },
    );
    expect(isError(run.error, ErrPolicyViolation)).toBe(true);
    const error = run.error as RunError;
    expect(error.reason).toBe("policy_violation");
    expect(error.message).toBe('run_commands (ACP kind execute) ran without a permission ask under sandbox "read_only"');
    expect(error.details).toEqual({ toolCallId: "sub", toolName: "run_commands", toolKind: "execute", fields: ["sandbox"] });
    expect(error.result.enforcement).toEqual([
      expect.objectContaining({ field: "sandbox", value: "read_only", enforced: false, mechanisms: [] }),
    ]);
    expect(error.result.enforcement[0]?.detail).toMatch(/broken: run_commands \(ACP kind execute\) ran without a permission ask/);
    expect(policyNotices(run.events)).toEqual([`ending the turn: ${error.message}`]);
  });

  it('approvals.permission "ask": an unasked call without a kind fails the run; an unasked read does not', async () => {
    const run = await turn(
      [call("r", "read", "completed", "read_file"), call("w", undefined, "completed", "write_it"), text("done"), done],
      { policy: { approvals: { permission: "ask" } } },
    );
    expect(isError(run.error, ErrPolicyViolation)).toBe(true);
    expect((run.error as RunError).details).toEqual({ toolCallId: "w", toolName: "write_it", fields: ["approvals.permission"] });
    expect((run.error as RunError).result.enforcement).toEqual([
      expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: false }),
    ]);
  });

  it('approvals.permission "auto_deny": an unasked edit fails the run', async () => {
    const run = await turn(
      [call("e", "edit", "in_progress", "apply_patch"), status("e", "completed"), { awaitCancel: true }, { hang: true }],
      {
        policy: { approvals: { permission: "auto_deny" } },
      },
    );
    expect((run.error as RunError).reason).toBe("policy_violation");
  });

  it("a call reported running before its ask (OpenCode's order), then asked, approved and run, succeeds", async () => {
    const run = await turn(
      [
        call("sh", "execute", "pending", "run_commands"),
        status("sh", "in_progress"),
        { permission: { toolCallId: "sh", title: "run_commands", kind: "execute" } },
        status("sh", "completed"),
        text("ok"),
        done,
      ],
      { policy: { approvals: { permission: "ask" } } },
    );
    expect(run.error).toBeUndefined();
    expect(run.asked).toEqual(["run_commands"]);
  });

  it("auto_approve without read_only does not rely on asks: an unasked execute call is no violation", async () => {
    const run = await turn([call("sh", "execute", "completed", "run_commands"), text("ok"), done], {
      policy: { approvals: { permission: "auto_approve" } },
    });
    expect(run.error).toBeUndefined();
  });

  it("a declared read_only session mode: an unasked execute call (a workspace config loosened the mode) fails the run", async () => {
    const run = await declaredReadOnly([
      call("sh", "execute", "in_progress", "bash"),
      status("sh", "completed"),
      { awaitCancel: true },
      { hang: true },
    ]);
    expect(isError(run.error, ErrPolicyViolation)).toBe(true);
    const error = run.error as RunError;
    expect(error.message).toBe('bash (ACP kind execute) ran without a permission ask under sandbox "read_only"');
    expect(error.details).toEqual({ toolCallId: "sh", toolName: "bash", toolKind: "execute", fields: ["sandbox"] });
    expect(error.result.enforcement).toEqual([
      expect.objectContaining({ field: "sandbox", value: "read_only", enforced: false, mechanisms: [] }),
    ]);
    expect(policyNotices(run.events)).toEqual([`ending the turn: ${error.message}`]);
  });

  for (const kind of ["edit", "delete", "move"])
    it(`a declared read_only session mode: an unasked ${kind} call fails the run`, async () => {
      const run = await declaredReadOnly([call("c", kind, "completed", "change"), text("ok"), done]);
      expect((run.error as RunError).details).toEqual({ toolCallId: "c", toolName: "change", toolKind: kind, fields: ["sandbox"] });
    });

  it("a declared read_only session mode: an unasked execute call the agent reports failed (refused by its own mode) is no evidence", async () => {
    const run = await declaredReadOnly([call("sh", "execute", "in_progress", "bash"), status("sh", "failed"), text("ok"), done]);
    expect(run.error).toBeUndefined();
    expect((run.result as { enforcement: unknown }).enforcement).toEqual([
      expect.objectContaining({ field: "sandbox", value: "read_only", enforced: true }),
    ]);
  });

  it("a declared read_only session mode is the bound for calls that do not change the machine: unasked read, search, fetch, think, other and kindless calls pass", async () => {
    const run = await declaredReadOnly([
      call("r", "read", "completed", "read"),
      call("s", "search", "completed", "grep"),
      call("f", "fetch", "completed", "webfetch"),
      call("t", "think", "completed", "plan"),
      call("o", "other", "completed", "todowrite"),
      call("n", undefined, "completed", "mcp_tool"),
      text("ok"),
      done,
    ]);
    expect(run.error).toBeUndefined();
    expect((run.result as { enforcement: unknown }).enforcement).toEqual([
      expect.objectContaining({ field: "sandbox", value: "read_only", enforced: true }),
    ]);
  });

  it("a declared read_only session mode: a read call that an update turns into execute fails the run as execute", async () => {
    const run = await declaredReadOnly([
      call("x", "read", "in_progress", "tool"),
      update("x", { kind: "execute" }),
      status("x", "completed"),
      text("ok"),
      done,
    ]);
    expect(violated(run)).toEqual({ toolCallId: "x", toolName: "tool", toolKind: "execute", fields: ["sandbox"] });
  });

  it("a declared read_only session mode: the agent runs a call the host denied (its ask) anyway: fails the run", async () => {
    const run = await declaredReadOnly([
      call("sh", "execute", "pending", "bash"),
      { permission: { toolCallId: "sh", title: "bash", kind: "execute" } },
      status("sh", "completed"),
      text("ok"),
      done,
    ]);
    expect(run.asked).toEqual([]);
    expect((run.error as RunError).message).toBe(
      'bash (ACP kind execute) ran although its permission ask was denied under sandbox "read_only"',
    );
  });
});

/** A `tool_call` with its own fields (title, kind, input). */
const callWith = (toolCallId: string, fields: Readonly<Record<string, unknown>>): HostileStep => ({
  update: { sessionUpdate: "tool_call", toolCallId, title: toolCallId, rawInput: { command: "rm -rf victim" }, ...fields },
});
const ask = (toolCallId: string, fields: Readonly<Record<string, unknown>>): HostileStep => ({
  permission: { toolCallId, title: toolCallId, ...fields },
});
const update = (toolCallId: string, fields: Readonly<Record<string, unknown>>): HostileStep => ({
  update: { sessionUpdate: "tool_call_update", toolCallId, ...fields },
});
const violated = (run: { error: unknown }): unknown => (run.error instanceof RunError ? run.error.details : run.error);

describe("a call is a host tool's only by its exact name and a kind that does not act", () => {
  it("read_only: an execute ask whose input names the server adaptor is denied, not allowed by the host", async () => {
    const input = { command: "rm -rf victim", server: "adaptor", tool: "lookup" };
    const run = await turn(
      [callWith("m", { kind: "execute", status: "pending", rawInput: input }), ask("m", { kind: "execute", rawInput: input }), done],
      READ_ONLY,
      {},
      "default",
      true,
    );
    expect(run.error).toBeUndefined();
    expect(policyNotices(run.events)).toEqual(["denied without asking: the run's sandbox is read_only; m is not a read"]);
    expect(run.events).toContainEqual(expect.objectContaining({ type: "tool-result", id: "m", isError: true }));
  });

  it("auto_deny: an execute ask titled as a host tool is denied, not allowed by the host", async () => {
    const run = await turn(
      [
        callWith("t", { kind: "execute", status: "pending", title: "Tool: adaptor/lookup" }),
        ask("t", { kind: "execute", title: "Tool: adaptor/lookup" }),
        done,
      ],
      AUTO_DENY,
      {},
      "default",
      true,
    );
    expect(run.error).toBeUndefined();
    expect(run.events).toContainEqual(expect.objectContaining({ type: "tool-result", id: "t", isError: true }));
  });

  it("read_only: an ask named like a tool of another server (mcp_adaptor_admin_shell) is denied", async () => {
    const run = await turn(
      [
        callWith("g", { kind: "other", status: "pending", title: "mcp_adaptor_admin_shell" }),
        ask("g", { kind: "other", title: "mcp_adaptor_admin_shell" }),
        done,
      ],
      READ_ONLY,
      {},
      "default",
      true,
    );
    expect(run.error).toBeUndefined();
    expect(policyNotices(run.events)).toEqual([
      "denied without asking: the run's sandbox is read_only; mcp_adaptor_admin_shell is not a read",
    ]);
  });

  it("auto_deny: an unasked execute call whose input names the server adaptor fails the run", async () => {
    const input = { command: "rm -rf victim", server: "adaptor", tool: "lookup" };
    const run = await turn(
      [callWith("m", { kind: "execute", status: "completed", rawInput: input }), text("ok"), done],
      AUTO_DENY,
      {},
      "default",
      true,
    );
    expect(violated(run)).toEqual({ toolCallId: "m", toolName: "m", toolKind: "execute", fields: ["approvals.permission"] });
  });

  it("auto_deny: an unasked call of another server's tool (mcp_adaptor_admin_shell, kind other) fails the run", async () => {
    const run = await turn(
      [callWith("g", { kind: "other", status: "completed", title: "mcp_adaptor_admin_shell" }), text("ok"), done],
      AUTO_DENY,
      {},
      "default",
      true,
    );
    expect(violated(run)).toEqual({
      toolCallId: "g",
      toolName: "mcp_adaptor_admin_shell",
      toolKind: "other",
      fields: ["approvals.permission"],
    });
  });

  it("auto_deny: an unasked call of the host tool by its exact name (mcp_adaptor_lookup, kind other) passes", async () => {
    const run = await turn(
      [callWith("h", { kind: "other", status: "completed", title: "mcp_adaptor_lookup", rawInput: { id: "1" } }), text("ok"), done],
      AUTO_DENY,
      {},
      "default",
      true,
    );
    expect(run.error).toBeUndefined();
  });
});

describe("a call the host denied, then reported completed, fails the run", () => {
  it("auto_deny: the agent runs the denied execute call anyway", async () => {
    const run = await turn(
      [
        callWith("A", { kind: "execute", status: "pending" }),
        ask("A", { kind: "execute" }),
        update("A", { status: "completed" }),
        { awaitCancel: true },
        { hang: true },
      ],
      AUTO_DENY,
    );
    expect(isError(run.error, ErrPolicyViolation)).toBe(true);
    expect((run.error as RunError).message).toBe(
      'A (ACP kind execute) ran although its permission ask was denied under approvals.permission "auto_deny"',
    );
    expect(violated(run)).toEqual({ toolCallId: "A", toolName: "A", toolKind: "execute", fields: ["approvals.permission"] });
  });

  it("read_only: the agent runs the execute call the host denied without asking", async () => {
    const run = await turn(
      [callWith("A", { kind: "execute", status: "pending" }), ask("A", { kind: "execute" }), update("A", { status: "completed" }), done],
      READ_ONLY,
    );
    expect(violated(run)).toEqual({ toolCallId: "A", toolName: "A", toolKind: "execute", fields: ["sandbox"] });
  });

  it("a denied call the agent reports failed is no violation", async () => {
    const run = await turn(
      [callWith("A", { kind: "execute", status: "pending" }), ask("A", { kind: "execute" }), update("A", { status: "failed" }), done],
      AUTO_DENY,
    );
    expect(run.error).toBeUndefined();
  });
});

describe("a call that acts and is reported failed without an ask fails the run too", () => {
  it('approvals.permission "ask": an unasked execute call reported failed (it wrote, then exited non-zero) fails the run', async () => {
    const run = await turn(
      [
        call("sh", "execute", "pending", "bash"),
        status("sh", "in_progress"),
        status("sh", "failed"),
        { awaitCancel: true },
        { hang: true },
      ],
      { policy: { approvals: { permission: "ask" } } },
    );
    expect(isError(run.error, ErrPolicyViolation)).toBe(true);
    expect((run.error as RunError).message).toBe('bash (ACP kind execute) ran without a permission ask under approvals.permission "ask"');
    expect((run.error as RunError).result.enforcement).toEqual([
      expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: false }),
    ]);
  });

  it("read_only through askMode: an unasked call of kind other reported failed fails the run, sandbox not enforced", async () => {
    const run = await turn([call("b", "other", "in_progress", "bash"), status("b", "failed"), { awaitCancel: true }, { hang: true }], {
      policy: { sandbox: "read_only" },
    });
    expect(violated(run)).toEqual({ toolCallId: "b", toolName: "bash", toolKind: "other", fields: ["sandbox"] });
    expect((run.error as RunError).result.enforcement).toEqual([expect.objectContaining({ field: "sandbox", enforced: false })]);
  });

  it("an unasked read reported failed is no violation", async () => {
    const run = await turn([call("r", "read", "in_progress", "read_file"), status("r", "failed"), text("ok"), done], {
      policy: { approvals: { permission: "ask" } },
    });
    expect(run.error).toBeUndefined();
  });

  it("a call only ever pending (no status, then pending) that the agent ends failed after the host interrupted the turn is no violation", async () => {
    const { events, result, error } = await interruptAtStart([
      { update: { sessionUpdate: "tool_call", toolCallId: "sh", title: "bash", kind: "execute", rawInput: { command: "touch x" } } },
      status("sh", "pending"),
      { awaitCancel: true },
      status("sh", "failed"),
      { respond: { stopReason: "cancelled" } },
    ]);
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ status: "interrupted" });
    expect(policyNotices(events)).toEqual([]);
  });

  it("a call reported in_progress before the host interrupted the turn, never asked, then ended failed, fails the run with policy_violation", async () => {
    const { events, result, error } = await interruptAtStart([
      call("sh", "execute", "pending", "bash"),
      status("sh", "in_progress"),
      { awaitCancel: true },
      status("sh", "failed"),
      { respond: { stopReason: "cancelled" } },
    ]);
    expect(result).toBeUndefined();
    expect(isError(error, ErrPolicyViolation)).toBe(true);
    expect((error as RunError).message).toBe('bash (ACP kind execute) ran without a permission ask under approvals.permission "ask"');
    expect((error as RunError).details).toEqual({
      toolCallId: "sh",
      toolName: "bash",
      toolKind: "execute",
      fields: ["approvals.permission"],
    });
    expect((error as RunError).result.enforcement).toEqual([
      expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: false }),
    ]);
    expect(policyNotices(events)).toHaveLength(1);
  });

  it("a call reported with output (rawOutput) while pending before the interrupt counts as started", async () => {
    const { error } = await interruptAtStart([
      call("sh", "execute", "pending", "bash"),
      { update: { sessionUpdate: "tool_call_update", toolCallId: "sh", rawOutput: { output: "partial" } } },
      { awaitCancel: true },
      status("sh", "failed"),
      { respond: { stopReason: "cancelled" } },
    ]);
    expect(isError(error, ErrPolicyViolation)).toBe(true);
    expect((error as RunError).details).toMatchObject({ toolCallId: "sh", fields: ["approvals.permission"] });
  });
});

/**
 * A turn under `ask` whose prompt runs `steps`: the host interrupts it at the call's `tool-call`
 * `end`, which the driver emits as it takes the first update that is not `pending` with the input
 * known (here the one before the steps' `awaitCancel`; a status-less `tool_call` in the pending case).
 */
async function interruptAtStart(steps: readonly HostileStep[]): Promise<{ events: AgentEvent[]; result: unknown; error: unknown }> {
  return interruptAt(steps, (event) => event.type === "tool-call" && event.phase === "end");
}

/** A turn under `ask` whose prompt runs `steps`, asks left unanswered: the host interrupts it at the first event `at` matches. */
async function interruptAt(
  steps: readonly HostileStep[],
  at: (event: AgentEvent) => boolean,
): Promise<{ events: AgentEvent[]; result: unknown; error: unknown }> {
  const driver = hostileAcp({ "session/new": [inMode("default")], "session/prompt": [steps] }, { askMode: "default" });
  agent = new Agent(driver);
  const stream = agent.stream("go", { policy: { approvals: { permission: "ask" } } });
  const events: AgentEvent[] = [];
  let interrupting: Promise<boolean> | undefined;
  for await (const event of stream) {
    events.push(event);
    if (at(event)) interrupting ??= stream.interrupt();
  }
  await interrupting;
  const outcome = await stream.result().then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error }),
  );
  return { events, ...outcome };
}

describe("an ask the host answers cancelled because it interrupted the turn (ACP: every permission request after session/cancel)", () => {
  const ask: HostileStep = { permission: { toolCallId: "sh", title: "bash", kind: "execute", rawInput: { command: "touch x" } } };
  const cancelled =
    'bash (ACP kind execute) ran although its permission ask was answered cancelled (the host had interrupted the turn) under approvals.permission "ask"';
  const atText = (event: AgentEvent): boolean => event.type === "text-delta";
  const atAsk = (event: AgentEvent): boolean => event.type === "approval-request";
  const deniedResults = (events: readonly AgentEvent[]): AgentEvent[] =>
    events.filter((e) => e.type === "tool-result" && e.output.startsWith("denied"));

  it("an ask that comes after the interrupt, then the call reported completed: fails the run as run against the cancelled ask", async () => {
    const { events, error } = await interruptAt(
      [text("working"), { awaitCancel: true }, ask, status("sh", "completed"), { respond: { stopReason: "cancelled" } }],
      atText,
    );
    expect(isError(error, ErrPolicyViolation)).toBe(true);
    expect((error as RunError).message).toBe(cancelled);
    expect((error as RunError).details).toEqual({
      toolCallId: "sh",
      toolName: "bash",
      toolKind: "execute",
      fields: ["approvals.permission"],
    });
    expect(policyNotices(events)).toHaveLength(1);
  });

  it("an ask open when the host interrupts, then the call reported completed: fails the run as run against the cancelled ask, not a denied one", async () => {
    const { events, error } = await interruptAt([ask, status("sh", "completed"), { respond: { stopReason: "cancelled" } }], atAsk);
    expect(isError(error, ErrPolicyViolation)).toBe(true);
    expect((error as RunError).message).toBe(cancelled);
    // The agent was answered `cancelled`: the host counts no denial of the call.
    expect(deniedResults(events)).toEqual([]);
  });

  it.each([
    ["after the interrupt", [text("working"), { awaitCancel: true }, ask], atText],
    ["open at the interrupt", [ask], atAsk],
  ] as const)(
    "an ask %s, then the call reported failed: no violation, the turn interrupted, no denial counted",
    async (_when, before, at) => {
      const { events, result, error } = await interruptAt(
        [...before, status("sh", "failed"), { respond: { stopReason: "cancelled" } }],
        at,
      );
      expect(error).toBeUndefined();
      expect(result).toMatchObject({ status: "interrupted" });
      expect(policyNotices(events)).toEqual([]);
      expect(deniedResults(events)).toEqual([]);
    },
  );
});

describe("a call counts as acting when any of its updates gave it an acting kind", () => {
  it("auto_deny: read, then an update to edit, then completed without a kind fails the run", async () => {
    const run = await turn(
      [
        callWith("k", { kind: "read", status: "pending" }),
        update("k", { kind: "edit", status: "in_progress" }),
        update("k", { status: "completed" }),
        done,
      ],
      AUTO_DENY,
    );
    expect(violated(run)).toEqual({ toolCallId: "k", toolName: "k", toolKind: "edit", fields: ["approvals.permission"] });
  });

  it("read_only: read, then execute, then read again, completed, fails the run as execute", async () => {
    const run = await turn(
      [
        callWith("k", { kind: "read", status: "pending" }),
        update("k", { kind: "execute", status: "in_progress" }),
        update("k", { kind: "read", status: "completed" }),
        done,
      ],
      READ_ONLY,
    );
    expect(violated(run)).toEqual({ toolCallId: "k", toolName: "k", toolKind: "execute", fields: ["sandbox"] });
  });
});

describe("an ask or a later update cannot lower a call's kind: the most acting kind counts", () => {
  const announcedExecuteAskedAsRead = [
    callWith("k", { kind: "execute", status: "pending" }),
    ask("k", { kind: "read" }),
    update("k", { status: "failed" }),
    text("done"),
    done,
  ];
  const kinds = (events: readonly AgentEvent[]): unknown[] =>
    events.filter((event) => event.type === "tool-call").map((event) => (event as { kind?: string }).kind);

  it("read_only through askMode: a call announced execute, then asked as a read, is denied without reaching the handler", async () => {
    const run = await turn(announcedExecuteAskedAsRead, READ_ONLY);
    expect(run.error).toBeUndefined();
    expect(run.asked).toEqual([]);
    expect(policyNotices(run.events)).toEqual(["denied without asking: the run's sandbox is read_only; k is not a read"]);
    expect(run.events).toContainEqual(expect.objectContaining({ type: "tool-result", id: "k", isError: true }));
    expect(kinds(run.events)).toEqual(["execute", "execute"]);
  });

  it("read_only: a kind spelled another way (Execute) or unknown (launch) counts, not as no kind: the read ask is denied", async () => {
    for (const [announced, seen] of [
      ["Execute", "execute"],
      [" DELETE ", "delete"],
      ["launch", "other"],
    ] as const) {
      const run = await turn(
        [
          callWith("k", { kind: announced, status: "pending" }),
          ask("k", { kind: "read" }),
          update("k", { status: "failed" }),
          text("done"),
          done,
        ],
        READ_ONLY,
      );
      expect(run.error).toBeUndefined();
      expect(run.asked).toEqual([]);
      expect(policyNotices(run.events)).toEqual(["denied without asking: the run's sandbox is read_only; k is not a read"]);
      expect(kinds(run.events)).toEqual([seen, seen]);
    }
  });

  it("a declared read_only session mode: the same ask is denied without reaching the handler", async () => {
    const run = await declaredReadOnly(announcedExecuteAskedAsRead);
    expect(run.error).toBeUndefined();
    expect(run.asked).toEqual([]);
    expect(policyNotices(run.events)).toEqual(["denied without asking: the run's sandbox is read_only; k is not a read"]);
  });

  it("ask: the handler sees the kind the call was announced with, not the ask's read", async () => {
    const seen: unknown[] = [];
    const run = await turn(announcedExecuteAskedAsRead, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        seen.push(request.details?.["toolKind"]);
        request.deny("no");
      },
    });
    expect(run.error).toBeUndefined();
    expect(seen).toEqual(["execute"]);
  });

  const askedAsReadThenExecuted = [
    callWith("k", { kind: "read", status: "pending" }),
    ask("k", { kind: "read" }),
    update("k", { kind: "execute", status: "completed" }),
    { awaitCancel: true },
    { hang: true },
  ];

  it.each([
    ["read_only through askMode", () => turn(askedAsReadThenExecuted, READ_ONLY)],
    ["a declared read_only session mode", () => declaredReadOnly(askedAsReadThenExecuted)],
  ])("%s: a call asked as a read and approved that an update then makes execute fails the run", async (_, run) => {
    const { error, asked, events } = await run();
    expect(asked).toEqual(["k"]);
    expect(isError(error, ErrPolicyViolation)).toBe(true);
    const violation = error as RunError;
    expect(violation.message).toBe('k (ACP kind execute) ran after a permission ask only as kind read under sandbox "read_only"');
    expect(violation.details).toEqual({ toolCallId: "k", toolName: "k", toolKind: "execute", askedAs: "read", fields: ["sandbox"] });
    expect(violation.result.enforcement).toEqual([expect.objectContaining({ field: "sandbox", value: "read_only", enforced: false })]);
    expect(policyNotices(events)).toEqual([`ending the turn: ${violation.message}`]);
  });

  it("read_only: an ask as a read before the call is announced execute (Kilo CLI's order), then completed, fails the run", async () => {
    const run = await turn(
      [ask("k", { kind: "read" }), callWith("k", { kind: "execute", status: "completed" }), { awaitCancel: true }, { hang: true }],
      READ_ONLY,
    );
    expect(violated(run)).toEqual({ toolCallId: "k", toolName: "k", toolKind: "execute", askedAs: "read", fields: ["sandbox"] });
  });

  it("read_only: a read asked and run as a read passes", async () => {
    const run = await turn(
      [
        callWith("k", { kind: "read", status: "pending" }),
        ask("k", { kind: "read" }),
        update("k", { status: "completed" }),
        text("ok"),
        done,
      ],
      READ_ONLY,
    );
    expect(run.error).toBeUndefined();
    expect(run.asked).toEqual(["k"]);
  });
});

describe("a new tool_call reusing the id of a finished call is a new call", () => {
  it("ask: an approved read, completed, then a new edit call under the same id, completed unasked, fails the run", async () => {
    const run = await turn(
      [
        callWith("A", { kind: "read", status: "pending" }),
        ask("A", { kind: "read" }),
        update("A", { status: "completed" }),
        callWith("A", { kind: "edit", status: "completed" }),
        done,
      ],
      { policy: { approvals: { permission: "ask" } } },
    );
    expect(run.asked).toEqual(["A"]);
    expect(violated(run)).toEqual({ toolCallId: "A", toolName: "A", toolKind: "edit", fields: ["approvals.permission"] });
  });
});

describe("the verdict and the approval.unasked notice exempt the same kinds (read, search, think)", () => {
  const unaskedNotices = (events: readonly AgentEvent[]): number =>
    events.filter((e) => e.type === "notice" && e.kind === "approval.unasked").length;

  it("auto_deny: an unasked fetch call fails the run", async () => {
    const run = await turn([callWith("f", { kind: "fetch", status: "completed" }), text("ok"), done], AUTO_DENY);
    expect(violated(run)).toEqual({ toolCallId: "f", toolName: "f", toolKind: "fetch", fields: ["approvals.permission"] });
  });

  it("auto_deny: an unasked think call neither fails the run nor gets the notice", async () => {
    const run = await turn([callWith("t", { kind: "think", status: "completed" }), text("ok"), done], AUTO_DENY);
    expect(run.error).toBeUndefined();
    expect(unaskedNotices(run.events)).toBe(0);
  });
});

describe("an ask that comes before the agent announces its call is the same call's ask", () => {
  // Kilo CLI 7.7.9's order: session/request_permission, then the tool_call (with only part of the
  // input), in_progress, and failed once the ask was denied.
  const askFirst: readonly HostileStep[] = [
    ask("A", { kind: "execute", status: "pending", rawInput: { command: "rm -rf victim" } }),
    callWith("A", { kind: "execute", status: "pending", rawInput: { cwd: "/work" } }),
    update("A", { status: "in_progress", rawInput: { command: "rm -rf victim", cwd: "/work" } }),
    update("A", { status: "failed", content: [{ type: "content", content: text("The user rejected permission") }] }),
    done,
  ];
  const endedInputs = (events: readonly AgentEvent[]): unknown[] =>
    events.flatMap((e) => (e.type === "tool-call" && e.phase === "end" ? [e.input] : []));

  for (const [label, options] of [
    ["read_only (denied without asking)", READ_ONLY],
    ["auto_deny", AUTO_DENY],
    [
      "ask, the handler denies",
      { policy: { approvals: { permission: "ask" } }, onApproval: (request: ApprovalRequest) => request.deny("no") },
    ],
  ] as const) {
    it(`${label}: the denied call reported failed is no violation, and its input is the asked command`, async () => {
      const run = await turn(askFirst, options as RunOptions);
      expect(run.error).toBeUndefined();
      expect(endedInputs(run.events)).toEqual([{ command: "rm -rf victim" }]);
    });
  }

  it("a pending announcement with part of the input, then the ask with the command: the call's input is the asked command", async () => {
    // The same agent's messages when the host takes its tool_call before its ask.
    const run = await turn(
      [
        callWith("A", { kind: "execute", status: "pending", rawInput: { cwd: "/work" } }),
        ask("A", { kind: "execute", status: "pending", rawInput: { command: "rm -rf victim" } }),
        update("A", { status: "in_progress", rawInput: { command: "rm -rf victim", cwd: "/work" } }),
        update("A", { status: "failed" }),
        done,
      ],
      AUTO_DENY,
    );
    expect(run.error).toBeUndefined();
    expect(endedInputs(run.events)).toEqual([{ command: "rm -rf victim" }]);
  });

  it("auto_deny: the denied call the agent then reports completed still fails the run as run although denied", async () => {
    const run = await turn(
      [
        ask("A", { kind: "execute", status: "pending", rawInput: { command: "rm -rf victim" } }),
        callWith("A", { kind: "execute", status: "pending", rawInput: { cwd: "/work" } }),
        update("A", { status: "completed" }),
        done,
      ],
      AUTO_DENY,
    );
    expect((run.error as RunError).message).toBe(
      'A (ACP kind execute) ran although its permission ask was denied under approvals.permission "auto_deny"',
    );
  });
});

describe("a delegation tool (a sub-agent the host cannot see) is refused under a policy enforced by asks", () => {
  const delegate: readonly HostileStep[] = [
    callWith("T", { title: "task", kind: "think", status: "pending", rawInput: { description: "sub" } }),
    ask("T", { title: "task", kind: "think", rawInput: { description: "sub", subagent_type: "general" } }),
    update("T", { status: "failed" }),
    done,
  ];

  it("ask: the task ask is denied without reaching the handler, with a policy notice", async () => {
    const run = await turn(delegate, { policy: { approvals: { permission: "ask" } } }, { delegationTools: ["task"] });
    expect(run.error).toBeUndefined();
    expect(run.asked).toEqual([]);
    expect(policyNotices(run.events)).toEqual([
      "denied without asking: task starts a sub-agent whose own tool calls the host is never asked about, under the run's approvals.permission",
    ]);
  });

  it("auto_approve does not rely on asks: the task ask is approved", async () => {
    const run = await turn(delegate, { policy: { approvals: { permission: "auto_approve" } } }, { delegationTools: ["task"] });
    expect(run.error).toBeUndefined();
    expect(policyNotices(run.events)).toEqual([]);
  });

  it("without delegationTools the task ask reaches the handler", async () => {
    const run = await turn(delegate, { policy: { approvals: { permission: "ask" } } });
    expect(run.asked).toEqual(["task"]);
  });

  it("delegationTools must be an array of tool names", () => {
    expect(() => hostileAcp({}, { delegationTools: "task" as never }).validateConfig()).toThrow(/delegationTools/);
  });
});

describe("budget.maxToolCalls in the agent's ask mode: the call over the limit ends the run at its ask, which no one approves", () => {
  const ask = (toolCallId: string): HostileStep => ({ permission: { toolCallId, title: toolCallId, kind: "edit" } });
  it.each([
    ["announced, then asked (Nanocoder's order)", [call("w2", "edit", "pending"), ask("w2")]],
    ["asked before it is announced (Kilo CLI's order)", [ask("w2")]],
  ])("%s", async (_, second) => {
    const run = await turn(
      [call("w1", "edit", "pending"), ask("w1"), status("w1", "completed"), ...second, status("w2", "completed"), done],
      {
        policy: { approvals: { permission: "ask" } },
        budget: { maxToolCalls: 1 },
      },
    );
    expect(run.asked).toEqual(["w1"]);
    expect(run.error).toBeInstanceOf(RunError);
    expect(run.error).toMatchObject({ reason: "budget_exceeded", details: { budget: "maxToolCalls", limit: 1, used: 2 } });
  });
});

describe("a Claude Code adapter's tools that write unasked in every mode", () => {
  /** A Claude Code adapter (by its agentInfo name) in a session that starts in `mode`, playing `prompt`. */
  async function claudeTurn(prompt: readonly HostileStep[], options: RunOptions, mode: string): ReturnType<typeof turn> {
    const driver = hostileAcp(
      {
        initialize: [
          { respond: { protocolVersion: 1, agentInfo: { name: "@zed-industries/claude-agent-acp", version: "0" }, authMethods: [] } },
        ],
        "session/new": [{ stderrParams: true }, inMode(mode)],
        "session/prompt": [prompt],
      },
      { askMode: "default", sandboxModes: { read_only: "dontAsk" } },
    );
    agent = new Agent(driver);
    const stream = agent.stream("go", { onApproval: (request: ApprovalRequest) => request.approve(), ...options });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const outcome = await stream.result().then(
      (result) => ({ result, error: undefined }),
      (error: unknown) => ({ result: undefined, error }),
    );
    return { events, asked: [], ...outcome };
  }

  it("under a declared read_only mode: a CronCreate reported completed unasked (an adapter that offered it anyway) fails the run", async () => {
    const run = await claudeTurn([call("c", "other", "completed", "CronCreate"), text("ok"), done], READ_ONLY, "dontAsk");
    expect(violated(run)).toEqual({ toolCallId: "c", toolName: "CronCreate", toolKind: "other", fields: ["sandbox"] });
    expect(policyNotices(run.events)).toContain(
      "@zed-industries/claude-agent-acp is a Claude Code ACP adapter: CronCreate, CronDelete, EnterWorktree, ExitWorktree (which write into the working directory without a permission ask in every mode) are left out of its session under the run's policy (sessionMeta.claudeCode.options.disallowedTools)",
    );
  });

  it("under a declared read_only mode: another kind-other call reported completed unasked passes", async () => {
    const run = await claudeTurn([call("t", "other", "completed", "TaskOutput"), text("ok"), done], READ_ONLY, "dontAsk");
    expect(run.error).toBeUndefined();
  });

  it("under ask: a call the adapter reports failed of a tool its session was opened without is no evidence; one of another tool is", async () => {
    const ASK: RunOptions = { policy: { approvals: { permission: "ask" } } };
    const leftOut = await claudeTurn([call("c", "other", "failed", "EnterWorktree"), text("ok"), done], ASK, "default");
    expect(leftOut.error).toBeUndefined();
    const other = await claudeTurn([call("f", "other", "failed", "FooBar"), text("ok"), done], ASK, "default");
    expect(violated(other)).toEqual({ toolCallId: "f", toolName: "FooBar", toolKind: "other", fields: ["approvals.permission"] });
  });
});

describe("a call the agent answers itself because it has no such tool (a name the model invented)", () => {
  const ASK: RunOptions = { policy: { approvals: { permission: "ask" } } };
  const NO_SUCH = (name: string): string => `<tool_use_error>Error: No such tool available: ${name}</tool_use_error>`;
  /** The call's end: `failed`, with this text content and raw output, and any extra content. */
  const failedWith = (toolCallId: string, said: string, extra: unknown[] = []): HostileStep => ({
    update: {
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "```\n" + said + "\n```" } }, ...extra],
      rawOutput: said,
    },
  });
  const pending = (toolCallId: string, kind: string, title: string): HostileStep => ({
    update: { sessionUpdate: "tool_call", toolCallId, title, kind, status: "pending", rawInput: { widget: "w1" } },
  });

  it("reported failed with only the agent's no-such-tool answer naming it is no violation under ask", async () => {
    const run = await turn(
      [pending("u", "other", "FrobnicateWidget"), failedWith("u", NO_SUCH("FrobnicateWidget")), text("ok"), done],
      ASK,
    );
    expect(run.error).toBeUndefined();
    expect(run.asked).toEqual([]);
    const result = run.events.find((e) => e.type === "tool-result");
    expect(result).toMatchObject({ name: "FrobnicateWidget", isError: true });
    expect(run.events.some((e) => e.type === "notice" && e.data?.["unknownTool"] === true)).toBe(true);
  });

  it("a call reported running first, of a kind that changes the machine, naming another tool, or with more output still fails the run", async () => {
    const cases: HostileStep[][] = [
      [pending("a", "other", "Frob"), status("a", "in_progress"), failedWith("a", NO_SUCH("Frob"))],
      [pending("b", "execute", "Frob"), failedWith("b", NO_SUCH("Frob"))],
      [pending("c", "other", "Frob"), failedWith("c", NO_SUCH("Other"))],
      [pending("d", "other", "Frob"), failedWith("d", NO_SUCH("Frob") + "\nwrote x")],
      [pending("e", "other", "Frob"), failedWith("e", NO_SUCH("Frob"), [{ type: "diff", path: "/w/x", oldText: null, newText: "x" }])],
    ];
    for (const steps of cases) {
      const run = await turn([...steps, { awaitCancel: true }, { hang: true }], ASK);
      expect(isError(run.error, ErrPolicyViolation)).toBe(true);
      await agent?.close();
    }
  });
});
