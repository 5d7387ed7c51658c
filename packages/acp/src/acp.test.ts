import { describe, expect, it } from "vitest";
import type * as acpSchema from "@agentclientprotocol/sdk";
import { ErrInvalidDriverConfig, type ApprovalAsk, type ApprovalDecision, type DriverEvent, type DriverSink } from "@adaptor/driver";
import { DriverError, ErrCode, findError, InvalidOptionError, isError } from "@adaptor/errors";
import { runDriver } from "@adaptor/driver/testing";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { acp, gemini } from "./index.js";
import { AcpTurn } from "./turn/acp-turn.js";
import { parseStructured, stopReasonFailure } from "./turn/verdict.js";

function refusal(run: () => void): InvalidOptionError | undefined {
  try {
    run();
  } catch (error) {
    expect(isError(error, ErrInvalidDriverConfig)).toBe(true);
    return findError(error, InvalidOptionError);
  }
  throw new Error("expected a refusal");
}

describe("acp config and descriptor", () => {
  it("refuses a missing command, a misspelt key and an unknown sandbox level, naming the field", () => {
    expect(refusal(() => acp({} as never).validateConfig())?.field).toBe("command");
    const misspelt = refusal(() => acp({ command: "agent", argz: [] } as never).validateConfig());
    expect(misspelt?.suggestion).toBe("args");
    expect(refusal(() => acp({ command: "agent", sandboxModes: { sandboxed: "x" } as never }).validateConfig())?.field).toContain(
      "sandboxModes",
    );
    expect(refusal(() => gemini({ extraArgs: ["--yolo"] }).validateConfig())?.field).toBe("extraArgs[0]");
  });

  it("declares sandbox levels from sandboxModes, resume and reading messages unless loadSession is off, never fork, a listing and one session's record (decided by the agent's initialize answer)", () => {
    const generic = acp({ command: "agent" }).descriptor;
    expect(generic.type).toBe("acp");
    expect(generic.capabilities.policy.sandbox).toEqual([]);
    expect(generic.capabilities.sessions).toEqual({ resume: true, fork: false, list: true, messages: true, info: true });
    expect(generic.capabilities.mcp.transports).toEqual(["stdio"]);
    const mapped = acp({ command: "agent", sandboxModes: { read_only: "plan" }, loadSession: false }).descriptor;
    expect(mapped.capabilities.policy.sandbox).toEqual(["read_only"]);
    expect(mapped.capabilities.sessions.resume).toBe(false);
    expect(mapped.capabilities.sessions.messages).toBe(false);
    expect(gemini().descriptor.capabilities.sessions.messages).toBe(false);
    const preset = gemini().descriptor;
    expect(preset).toMatchObject({ type: "gemini", displayName: "Gemini CLI" });
    // An untrusted working directory (the default): gemini-cli takes neither autoEdit nor yolo there.
    expect(preset.capabilities.policy.sandbox).toEqual(["read_only"]);
    expect(Object.isFrozen(preset.capabilities.policy.sandbox)).toBe(true);
    expect(gemini({ workspaceSettings: true }).descriptor.capabilities.policy.sandbox).toEqual(["workspace_write", "unrestricted"]);
  });
});

describe("policy capabilities from the config", () => {
  it("permission modes only with askMode (which also enforces read_only); everything with bestEffortPolicy", () => {
    const plain = acp({ command: "agent" }).descriptor.capabilities;
    expect(plain.approvals.permission).toEqual(["inherit"]);
    expect(plain.policy.sandbox).toEqual([]);
    const asking = acp({ command: "agent", askMode: "default" }).descriptor.capabilities;
    expect(asking.approvals.permission).toEqual(["inherit", "ask", "auto_approve", "auto_deny"]);
    expect(asking.policy.sandbox).toEqual(["read_only"]);
    const lax = acp({ command: "agent", bestEffortPolicy: true }).descriptor.capabilities;
    expect(lax.policy).toMatchObject({ sandbox: ["read_only", "workspace_write", "unrestricted"], webSearch: ["allow", "deny"] });
    expect(lax.approvals.question).toEqual(["inherit", "ask", "auto_deny"]);
  });
});

describe("stop reasons and structured answers", () => {
  it("end_turn succeeds; cancelled is cancelled; refusal and the limits are agent_error with the stop reason", () => {
    expect(stopReasonFailure("end_turn")).toBeUndefined();
    expect(stopReasonFailure("cancelled")?.reason).toBe("cancelled");
    for (const stop of ["refusal", "max_tokens", "max_turn_requests"]) {
      expect(stopReasonFailure(stop)).toMatchObject({ reason: "agent_error", details: { stopReason: stop } });
    }
  });

  it("parses one JSON value, fenced or not, and leaves prose alone", () => {
    expect(parseStructured('{"a":1}')).toEqual({ structured: { a: 1 } });
    expect(parseStructured('```json\n{"a":1}\n```')).toEqual({ structured: { a: 1 } });
    expect(parseStructured("not json")).toEqual({});
  });
});

function recordingSink(
  decide: (ask: ApprovalAsk) => Promise<ApprovalDecision>,
): DriverSink & { events: DriverEvent[]; asks: ApprovalAsk[] } {
  const events: DriverEvent[] = [];
  const asks: ApprovalAsk[] = [];
  return {
    events,
    asks,
    emit: (event) => events.push(event),
    requestApproval: (ask) => {
      asks.push(ask);
      return decide(ask);
    },
  };
}

const OPTIONS: acpSchema.PermissionOption[] = [
  { optionId: "always", name: "Always", kind: "allow_always" },
  { optionId: "once", name: "Allow", kind: "allow_once" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
];
const request = (id: string): acpSchema.RequestPermissionRequest => ({
  sessionId: "s",
  toolCall: { toolCallId: id, title: "Write a.txt", rawInput: { path: "a.txt" } },
  options: OPTIONS,
});

describe("permission requests", () => {
  it("approve selects allow_once, deny selects reject_once and reports the call as a failed result", async () => {
    const sink = recordingSink(async (ask) => (ask.toolCallId === "t1" ? { outcome: "approve" } : { outcome: "deny", reason: "no" }));
    const turn = new AcpTurn(sink);
    turn.beginPrompt();
    const signal = new AbortController().signal;
    expect(await turn.onPermission(request("t1"), signal)).toEqual({ outcome: { outcome: "selected", optionId: "once" } });
    expect(await turn.onPermission(request("t2"), signal)).toEqual({ outcome: { outcome: "selected", optionId: "no" } });
    expect(sink.asks.map((ask) => [ask.toolCallId, ask.input])).toEqual([
      ["t1", { path: "a.txt" }],
      ["t2", { path: "a.txt" }],
    ]);
    expect(sink.events.filter((e) => e.type === "tool-result")).toEqual([
      { type: "tool-result", id: "t2", name: "Write a.txt", output: "denied: no", isError: true },
    ]);
  });

  it("an open request is answered cancelled when the turn ends, and the host's late answer is ignored", async () => {
    let decide!: (decision: ApprovalDecision) => void;
    const sink = recordingSink(() => new Promise((resolve) => (decide = resolve)));
    const turn = new AcpTurn(sink);
    turn.beginPrompt();
    const answer = turn.onPermission(request("t1"), new AbortController().signal);
    await Promise.resolve();
    turn.end();
    expect(await answer).toEqual({ outcome: { outcome: "cancelled" } });
    decide({ outcome: "approve" });
    expect(await turn.onPermission(request("t2"), new AbortController().signal)).toEqual({ outcome: { outcome: "cancelled" } });
    expect(sink.asks).toHaveLength(1);
  });

  it("a request the agent withdraws ($/cancel_request) is answered cancelled", async () => {
    const sink = recordingSink(() => new Promise(() => undefined));
    const turn = new AcpTurn(sink);
    turn.beginPrompt();
    const withdrawn = new AbortController();
    const answer = turn.onPermission(request("t1"), withdrawn.signal);
    withdrawn.abort();
    expect(await answer).toEqual({ outcome: { outcome: "cancelled" } });
  });
});

describe("an agent that ends before its turn begins (fake CLI)", () => {
  it("the run rejects with DriverError DEVICE_DISCONNECTED naming how the agent ended and its last stderr", async () => {
    const steps: FakeCliStep[] = [{ awaitStdinLine: true }, { stderr: "fatal: could not load the model config\n" }, { exit: 7 }];
    const driver = acp({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300 });
    try {
      const run = await runDriver(driver, { prompt: "hi" });
      const error = findError(run.error, DriverError);
      expect(error?.code).toBe(ErrCode.DeviceDisconnected);
      expect(error?.op).toBe("session setup");
      expect(String((error?.cause as Error | undefined)?.message)).toMatch(
        /ended before its turn began \(exit code 7\): fatal: could not load the model config/,
      );
    } finally {
      await driver.close();
    }
  });
});
