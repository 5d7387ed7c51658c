import { describe, expect, it } from "vitest";
import type { DriverEvent } from "@adaptor/driver";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, DriverError, findError, RunError, type AgentEvent } from "adaptor";
import { UnaskedTools } from "../src/run/driver-contract.js";
import { scriptedDriver } from "./scripted-driver.js";

/** Every event of a run on `agent` and its verdict (the Result, or what it rejected with). */
async function drain(stream: ReturnType<Agent["stream"]>): Promise<{ events: AgentEvent[]; verdict: unknown }> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const verdict = await stream.result().catch((e: unknown) => e);
  return { events, verdict };
}

/** `events` without `meta`, for comparing. */
const bare = (events: AgentEvent[]): unknown[] => events.map(({ meta: _meta, ...event }) => event);

// What the SDK checks of every driver, so that a driver's mistake never becomes a wrong verdict.

describe("the SDK's checks of a driver's response", () => {
  it("a success claimed for a process that exited with a non-zero code is an agent_error with details.exitCode", async () => {
    const driver = scriptedDriver(async () => ({ text: "", exit: { code: 139, signal: null } }));
    const error = await new Agent(driver).run("hi").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).reason).toBe("agent_error");
    expect((error as RunError).message).toBe("scripted exited with code 139; its driver reported a success");
    expect((error as RunError).details).toEqual({ exitCode: 139, exitSignal: null, driverClaimedSuccess: true });
  });

  it("a driver's own agent_error for a crashed process gets the promised details.exitCode / exitSignal when it left them out", async () => {
    const driver = scriptedDriver(async () => ({
      text: "",
      failure: { reason: "agent_error", message: "mycli exited 139 without a result", details: { line: 3 } },
      exit: { code: 139, signal: null },
    }));
    const error = await new Agent(driver).run("hi").catch((e: unknown) => e);
    expect((error as RunError).message).toBe("mycli exited 139 without a result");
    expect((error as RunError).details).toEqual({ line: 3, exitCode: 139, exitSignal: null });
  });

  it("a non-zero exit of a process the driver ended itself after its turn is not a crash", async () => {
    const driver = scriptedDriver(async () => ({ text: "ok", exit: { code: 143, signal: null, endedByDriver: true } }));
    expect((await new Agent(driver).run("hi")).text).toBe("ok");
  });

  it("an explicitly set policy field the driver does not report fails the run as policy_violation, listed as not enforced", async () => {
    const driver = scriptedDriver(async () => ({ text: "wrote the file", enforcement: [] }));
    const error = await new Agent(driver)
      .run("hi", { policy: { sandbox: undefined, approvals: { permission: "auto_deny", question: "inherit" } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).reason).toBe("policy_violation");
    expect((error as RunError).message).toBe(
      "scripted: approvals.permission=auto_deny not enforced (the driver did not report enforcing it); a value a driver cannot enforce must be refused before launch",
    );
    expect((error as RunError).details).toEqual({ fields: ["approvals.permission"] });
    expect((error as RunError).result.text).toBe("wrote the file");
    expect((error as RunError).result.enforcement).toEqual([
      {
        field: "approvals.permission",
        value: "auto_deny",
        enforced: false,
        mechanisms: [],
        detail: "the driver did not report enforcing it",
      },
    ]);
  });

  it("a driver that reports a field not enforced and one that does not report it get the same verdict", async () => {
    const reasons: unknown[] = [];
    for (const enforcement of [[], [{ field: "approvals.permission", value: "ask", enforced: false, mechanisms: [], detail: "cannot" }]]) {
      const driver = scriptedDriver(async () => ({ text: "ok", enforcement }));
      const error = await new Agent(driver).run("hi", { policy: { approvals: { permission: "ask" } } }).catch((e: unknown) => e);
      reasons.push((error as RunError).reason);
    }
    expect(reasons).toEqual(["policy_violation", "policy_violation"]);
  });

  it("a driver that reports a set value it did not enforce, without best effort, fails the run as policy_violation with its Result", async () => {
    const driver = scriptedDriver(async () => ({
      text: "wrote the file",
      enforcement: [{ field: "approvals.permission", value: "auto_deny", enforced: false, mechanisms: [], detail: "mycli cannot" }],
    }));
    const error = await new Agent(driver).run("hi", { policy: { approvals: { permission: "auto_deny" } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).reason).toBe("policy_violation");
    expect((error as RunError).message).toBe(
      "scripted: approvals.permission=auto_deny not enforced (mycli cannot); a value a driver cannot enforce must be refused before launch",
    );
    expect((error as RunError).details).toEqual({ fields: ["approvals.permission"] });
    expect((error as RunError).result.text).toBe("wrote the file");
    expect((error as RunError).result.enforcement).toEqual([
      { field: "approvals.permission", value: "auto_deny", enforced: false, mechanisms: [], detail: "mycli cannot" },
    ]);
  });

  it("a set value the driver ran on best effort (bestEffort: true, the host's choice) stays a success listed as not enforced", async () => {
    const entry = {
      field: "approvals.permission",
      value: "auto_deny",
      enforced: false,
      mechanisms: [],
      detail: "best effort accepted",
      bestEffort: true,
    };
    const driver = scriptedDriver(async () => ({ text: "ok", enforcement: [entry] }));
    const result = await new Agent(driver).run("hi", { policy: { approvals: { permission: "auto_deny" } } });
    expect(result.enforcement).toEqual([entry]);
  });

  it("under an explicit ask or auto_deny, a tool that ran with no approval asked about it gets an approval.unasked notice; an asked one does not", async () => {
    const driver = scriptedDriver(async (_request, sink) => {
      sink.emit({ type: "tool-call", phase: "start", id: "t1", name: "Bash" });
      sink.emit({ type: "tool-result", id: "t1", output: "ran rm -rf /", isError: false });
      sink.emit({ type: "tool-call", phase: "start", id: "t2", name: "Bash" });
      await sink.requestApproval({ kind: "permission", title: "Bash: ls", toolName: "Bash", toolCallId: "t2" });
      sink.emit({ type: "tool-result", id: "t2", output: "denied", isError: true });
      sink.emit({ type: "tool-call", phase: "start", id: "t3", name: "Write" });
      await sink.requestApproval({ kind: "permission", title: "Write", toolName: "Write", toolCallId: "t3" });
      sink.emit({ type: "tool-result", id: "t3", output: "written", isError: false });
      return { text: "done" };
    });
    const agent = new Agent(driver);
    const notices = async (permission: "ask" | "auto_deny" | "auto_approve"): Promise<unknown[]> => {
      const stream = agent.stream("p", {
        policy: { approvals: { permission } },
        onApproval: (request) => request.approve(),
      });
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      await stream.result().catch(() => undefined);
      return events.flatMap((e) =>
        e.type === "notice" && e.kind === "approval.unasked" ? [{ type: e.type, kind: e.kind, message: e.message, data: e.data }] : [],
      );
    };
    for (const mode of ["ask", "auto_deny"] as const)
      expect(await notices(mode)).toEqual([
        {
          type: "notice",
          kind: "approval.unasked",
          message: `Bash ran without an approval request under approvals.permission "${mode}"`,
          data: { toolCallId: "t1", toolName: "Bash", mode },
        },
      ]);
    expect(await notices("auto_approve")).toEqual([]);
  });

  it("under ask, a tool the driver declares in askExemptTools or a call of kind read, search or think gets no approval.unasked notice; a write or an exec run unasked still does", async () => {
    const scripted = scriptedDriver(async (_request, sink) => {
      const calls: [id: string, name: string, kind?: "read" | "search" | "think" | "edit" | "execute"][] = [
        ["r1", "Read"],
        ["r2", "read_file", "read"],
        ["r3", "grep", "search"],
        ["r4", "plan", "think"],
        ["w1", "Write"],
        ["w2", "write_file", "edit"],
        ["x1", "run_shell_command", "execute"],
      ];
      for (const [id, name, kind] of calls) {
        sink.emit({ type: "tool-call", phase: "start", id, name, ...(kind ? { kind } : {}) });
        sink.emit({ type: "tool-result", id, output: "ok", isError: false });
      }
      return { text: "done" };
    });
    const { descriptor } = scripted;
    const driver = Object.assign(scripted, {
      descriptor: { ...descriptor, capabilities: { ...descriptor.capabilities, askExemptTools: ["Read"] } },
    });
    const agent = new Agent(driver);
    const stream = agent.stream("p", { policy: { approvals: { permission: "ask" } }, onApproval: (request) => request.approve() });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const error = await stream.result().catch((e: unknown) => e);
    const unasked = events.flatMap((e) => (e.type === "notice" && e.kind === "approval.unasked" ? [e.data?.["toolCallId"]] : []));
    expect(unasked).toEqual(["w1", "w2", "x1"]);
    expect((error as RunError).details).toEqual({ fields: ["approvals.permission"], toolCallIds: ["w1", "w2", "x1"] });
  });

  it("under auto_deny or ask, a tool that ran without an ask fails the run policy_violation with its Result, the permission entry not enforced", async () => {
    for (const mode of ["auto_deny", "ask"] as const) {
      const driver = scriptedDriver(async (_request, sink) => {
        sink.emit({ type: "tool-call", phase: "start", id: "w1", name: "write" });
        sink.emit({ type: "tool-result", id: "w1", output: "wrote", isError: false });
        return { text: "wrote" };
      });
      const { events, verdict } = await drain(
        new Agent(driver).stream("p", { policy: { approvals: { permission: mode } }, onApproval: (request) => request.approve() }),
      );
      expect(verdict, mode).toBeInstanceOf(RunError);
      const error = verdict as RunError;
      expect(error.reason).toBe("policy_violation");
      expect(error.message).toBe(`scripted: write (w1) ran without an approval request under approvals.permission "${mode}"`);
      expect(error.details).toEqual({ fields: ["approvals.permission"], toolCallIds: ["w1"] });
      expect(error.result.text).toBe("wrote");
      expect(error.result.enforcement).toEqual([
        {
          field: "approvals.permission",
          value: mode,
          enforced: false,
          mechanisms: [],
          detail: "write (w1) ran without an approval request",
        },
      ]);
      expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false, reason: "policy_violation" });
    }
  });

  it("a result the driver marks coveredByAsk (an ask that did not name its id covered it) is not an unasked call", async () => {
    const driver = scriptedDriver(async (_request, sink) => {
      await sink.requestApproval({ kind: "permission", title: "Run touch a", toolName: "terminal/create" });
      sink.emit({ type: "tool-call", phase: "start", id: "c1", name: "Bash", kind: "execute" });
      sink.emit({ type: "tool-result", id: "c1", output: "", isError: false, coveredByAsk: true });
      return { text: "ran" };
    });
    const { events, verdict } = await drain(
      new Agent(driver).stream("p", { policy: { approvals: { permission: "ask" } }, onApproval: (r) => r.approve() }),
    );
    expect((verdict as { text: string }).text).toBe("ran");
    expect(events.filter((e) => e.type === "notice" && e.kind === "approval.unasked")).toEqual([]);
  });

  it("a call a deny rule names that ran unasked fails the run policy_violation, also when its ask was covered, its tool exempt, or the rule remembered under permission unset", async () => {
    const readSecret = { command: "/bin/bash -lc 'cat secret.txt'", cwd: "/repo" };
    const scripted = scriptedDriver(async (request, sink) => {
      if (request.policy?.approvals?.permission === undefined)
        // The host's answer remembers the deny; the CLI then runs the next such command unasked.
        await sink.requestApproval({
          kind: "permission",
          title: "cat a",
          toolName: "shell",
          toolCallId: "c0",
          input: { command: "cat a", cwd: "/repo" },
        });
      sink.emit({ type: "tool-call", phase: "start", id: "c1", name: "shell" });
      sink.emit({ type: "tool-call", phase: "end", id: "c1", name: "shell", input: readSecret });
      sink.emit({ type: "tool-result", id: "c1", output: "TOPSECRET", isError: false, coveredByAsk: true });
      sink.emit({ type: "tool-call", phase: "end", id: "r1", name: "Read", input: { file_path: "/repo/secret/key.pem" } });
      sink.emit({ type: "tool-result", id: "r1", output: "KEY", isError: false });
      sink.emit({ type: "tool-call", phase: "end", id: "r2", name: "Read", input: { file_path: "/repo/README.md" } });
      sink.emit({ type: "tool-result", id: "r2", output: "readme", isError: false });
      return { text: "read" };
    });
    const { descriptor } = scripted;
    const driver = Object.assign(scripted, {
      descriptor: { ...descriptor, capabilities: { ...descriptor.capabilities, askExemptTools: ["Read"] } },
    });
    const catRule = { toolName: "shell", commandPrefix: "cat" };
    const keyRule = { toolName: "Read", pathPrefix: "/repo/secret" };
    const underAsk = await drain(
      new Agent(driver).stream("p", {
        policy: {
          approvals: {
            permission: "ask",
            rules: [
              { ...catRule, outcome: "deny" },
              { ...keyRule, outcome: "deny" },
            ],
          },
        },
        onApproval: (request) => request.approve(),
      }),
    );
    const error = underAsk.verdict as RunError;
    expect(error).toBeInstanceOf(RunError);
    expect(error.reason).toBe("policy_violation");
    expect(error.details).toEqual({ fields: ["approvals.permission"], toolCallIds: ["c1", "r1"] });
    expect(error.message).toBe(
      `scripted: shell (c1, named by the deny rule ${JSON.stringify(catRule)}), Read (r1, named by the deny rule ${JSON.stringify(keyRule)}) ran without an approval request under approvals.permission "ask"`,
    );
    expect(error.result.enforcement).toEqual([expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: false })]);
    const unasked = underAsk.events.flatMap((e) => (e.type === "notice" && e.kind === "approval.unasked" ? [e.data] : []));
    expect(unasked).toEqual([
      { toolCallId: "c1", toolName: "shell", mode: "ask", rule: catRule },
      { toolCallId: "r1", toolName: "Read", mode: "ask", rule: keyRule },
    ]);

    const remembered = await drain(
      new Agent(driver).stream("p", {
        onApproval: (request) => request.deny("never cat", { remember: { toolName: "shell", commandPrefix: "cat" } }),
      }),
    );
    expect(remembered.verdict).toBeInstanceOf(RunError);
    expect(remembered.verdict).toMatchObject({ reason: "policy_violation", details: { toolCallIds: ["c1"] } });
    expect((remembered.verdict as RunError).message).toBe(
      `scripted: shell (c1, named by the deny rule ${JSON.stringify(catRule)}) ran without an approval request under approvals.permission unset`,
    );
    expect(remembered.events.flatMap((e) => (e.type === "notice" && e.kind === "approval.unasked" ? [e.data] : []))).toEqual([
      { toolCallId: "c1", toolName: "shell", rule: catRule },
    ]);
    // With the permission unset, the entry names the rule the call broke, not a mode.
    expect((remembered.verdict as RunError).result.enforcement).toEqual([
      expect.objectContaining({ field: "approvals.permission", value: `deny rule ${JSON.stringify(catRule)}`, enforced: false }),
    ]);
  });

  it("a call a deny rule names that ran unasked fails the run also when the host accepted the permission mode on best effort; calls no rule names stay excused", async () => {
    const entry = { field: "approvals.permission", value: "ask", enforced: false, mechanisms: [], detail: "best effort", bestEffort: true };
    const driver = scriptedDriver(async (_request, sink) => {
      sink.emit({ type: "tool-call", phase: "end", id: "w1", name: "write", input: { path: "/repo/a" } });
      sink.emit({ type: "tool-result", id: "w1", output: "wrote", isError: false });
      sink.emit({ type: "tool-call", phase: "end", id: "c1", name: "shell", input: { command: "cat secret.txt", cwd: "/repo" } });
      sink.emit({ type: "tool-result", id: "c1", output: "TOPSECRET", isError: false, coveredByAsk: true });
      return { text: "read", enforcement: [entry] };
    });
    const catRule = { toolName: "shell", commandPrefix: "cat" };
    const error = (await new Agent(driver)
      .run("p", { policy: { approvals: { permission: "ask", rules: [{ ...catRule, outcome: "deny" }] } }, onApproval: (r) => r.approve() })
      .catch((e: unknown) => e)) as RunError;
    expect(error).toBeInstanceOf(RunError);
    expect(error.reason).toBe("policy_violation");
    expect(error.details).toEqual({ fields: ["approvals.permission"], toolCallIds: ["c1"] });
    expect(error.message).toBe(
      `scripted: shell (c1, named by the deny rule ${JSON.stringify(catRule)}) ran without an approval request under approvals.permission "ask"`,
    );
    expect(error.result.enforcement).toEqual([
      {
        field: "approvals.permission",
        value: "ask",
        enforced: false,
        mechanisms: [],
        detail: `shell (c1, named by the deny rule ${JSON.stringify(catRule)}) ran without an approval request`,
      },
    ]);
  });

  it("a call's input is kept until its result only while the run holds a deny rule", () => {
    const compared: unknown[] = [];
    let holds = false;
    const tools = new UnaskedTools(
      { approvals: { permission: "ask" } },
      undefined,
      undefined,
      undefined,
      (_toolName, input) => {
        compared.push(input);
        return undefined;
      },
      () => holds,
    );
    tools.observe({ type: "tool-call", phase: "end", id: "a", name: "shell", input: { command: "ls" } });
    holds = true;
    tools.observe({ type: "tool-call", phase: "end", id: "b", name: "shell", input: { command: "cat x" } });
    tools.observe({ type: "tool-result", id: "a", output: "", isError: false });
    tools.observe({ type: "tool-result", id: "b", output: "", isError: false });
    expect(compared).toEqual([undefined, { command: "cat x" }]);
  });

  it("an unasked call under a permission mode the host accepted on best effort stays a success, listed not enforced", async () => {
    const entry = { field: "approvals.permission", value: "ask", enforced: false, mechanisms: [], detail: "best effort", bestEffort: true };
    const driver = scriptedDriver(async (_request, sink) => {
      sink.emit({ type: "tool-call", phase: "start", id: "w1", name: "write" });
      sink.emit({ type: "tool-result", id: "w1", output: "wrote", isError: false });
      return { text: "wrote", enforcement: [entry] };
    });
    const result = await new Agent(driver).run("p", { policy: { approvals: { permission: "ask" } }, onApproval: (r) => r.approve() });
    expect(result.enforcement).toEqual([entry]);
  });

  it("a driver's own policy_violation for an unasked call keeps its message and entry", async () => {
    const entry = {
      field: "approvals.permission",
      value: "ask",
      enforced: false,
      mechanisms: [],
      detail: "write ran unasked (the agent's words)",
    };
    const driver = scriptedDriver(async (_request, sink) => {
      sink.emit({ type: "tool-call", phase: "start", id: "w1", name: "write" });
      sink.emit({ type: "tool-result", id: "w1", output: "wrote", isError: false });
      return { text: "", enforcement: [entry], failure: { reason: "policy_violation", message: "the agent ran write unasked" } };
    });
    const error = (await new Agent(driver)
      .run("p", { policy: { approvals: { permission: "ask" } }, onApproval: (r) => r.approve() })
      .catch((e: unknown) => e)) as RunError;
    expect(error.message).toBe("the agent ran write unasked");
    expect(error.result.enforcement).toEqual([entry]);
  });

  it("a driver whose run() rejects with a string, undefined or a plain object: the host gets a DriverError INTERNAL (op driver run) whose cause is the value", async () => {
    for (const [thrown, quoted] of [
      ["plain string failure", '"plain string failure"'],
      [undefined, "undefined"],
      [{ code: 42 }, '{"code":42}'],
    ] as const) {
      const driver = scriptedDriver(() => Promise.reject(thrown as unknown));
      const error = await new Agent(driver).run("hi").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DriverError);
      expect(findError(error, DriverError)).toMatchObject({ code: "INTERNAL", op: "driver run", device: "scripted" });
      expect((error as DriverError).cause).toBe(thrown);
      expect((error as DriverError).message).toBe(
        `[INTERNAL] driver run: scripted (the driver's run() rejected with a value that is not an Error: ${quoted})`,
      );
    }
  });

  it("a driver's Error rejection reaches the host unchanged", async () => {
    const failure = new TypeError("driver bug");
    const error = await new Agent(scriptedDriver(() => Promise.reject(failure))).run("hi").catch((e: unknown) => e);
    expect(error).toBe(failure);
  });

  it("a driver that ignores the abort is left behind after 3 × killGraceMs + 5 s: the run rejects with the abort reason and a notice says so", async () => {
    let stopped = false;
    const controller = new AbortController();
    const reason = new Error("host shutdown");
    const driver = scriptedDriver(
      // Runs on as if the signal were not there, until the test ends it.
      () =>
        new Promise((resolve) => {
          controller.abort(reason);
          const poll = setInterval(() => {
            if (stopped) {
              clearInterval(poll);
              resolve({ text: "late" });
            }
          }, 100);
        }),
    );
    // The kit's drivers expose their config; the wait is 3 × its killGraceMs + 5 s.
    Object.assign(driver, { config: { killGraceMs: 0 } });
    const stream = new Agent(driver).stream("p", { signal: controller.signal });
    const events: AgentEvent[] = [];
    const started = Date.now();
    try {
      for await (const event of stream) events.push(event);
      await expect(stream.result()).rejects.toBe(reason);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(events.find((e) => e.type === "notice" && e.message === "driver did not stop")).toMatchObject({
        kind: "lifecycle",
        data: { driver: "scripted", waitedMs: 5_000 },
      });
      expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false });
    } finally {
      stopped = true;
    }
  }, 60_000);

  it("events only the SDK may emit (run-started, run-finished, dropped, approval-request, unknown types) are dropped, counted in one driver.contract notice; the run's own lifecycle stands", async () => {
    const driver = scriptedDriver(async (_request, sink) => {
      const forged = [
        { type: "run-finished", ok: false, reason: "agent_error", message: "forged by the driver" },
        { type: "run-started", driver: "forged" },
        { type: "dropped", count: 99 },
        { type: "run-finished", ok: true },
        { type: "approval-request" },
        { type: "custom" },
      ];
      for (const event of forged) sink.emit(event as unknown as DriverEvent);
      sink.emit({ type: "text-delta", text: "hello" });
      return { text: "hello" };
    });
    const { events, verdict } = await drain(new Agent(driver).stream("p"));
    expect((verdict as { status?: unknown }).status).toBe("completed");
    expect(bare(events).map((e) => (e as { type: string }).type)).toEqual(["run-started", "text-delta", "notice", "run-finished"]);
    // Counted as the driver's call ends.
    const notice = bare(events)[2];
    expect(notice).toEqual({
      type: "notice",
      kind: "driver.contract",
      message:
        "scripted emitted 6 events only the SDK may emit (run-finished ×2, run-started ×1, dropped ×1, approval-request ×1, custom ×1); dropped",
      data: {
        driver: "scripted",
        check: "sdk-only-events",
        refused: { "run-finished": 2, "run-started": 1, dropped: 1, "approval-request": 1, custom: 1 },
        count: 6,
      },
    });
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: true });
    expect(events.map((e) => e.meta.sequence)).toEqual([1, 2, 3, 4]);
  });

  it("a driver that emits only its own events gets no driver.contract notice", async () => {
    const driver = scriptedDriver(async (_request, sink) => {
      sink.emit({ type: "text-delta", text: "hi" });
      sink.emit({ type: "notice", kind: "lifecycle", message: "init" });
      sink.emit({ type: "process", kind: "stderr", text: "warn" });
      return { text: "hi" };
    });
    const { events } = await drain(new Agent(driver).stream("p"));
    expect(events.filter((e) => e.type === "notice" && e.kind === "driver.contract")).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(["run-started", "text-delta", "notice", "process", "run-finished"]);
  });

  it("interrupted: true that no stream.interrupt() asked for is a completed turn, with a driver.contract notice; run-finished has no interrupted", async () => {
    const driver = scriptedDriver(async () => ({ text: "all done", interrupted: true }));
    const { events, verdict } = await drain(new Agent(driver).stream("p"));
    expect((verdict as { status?: unknown }).status).toBe("completed");
    expect((verdict as { text?: unknown }).text).toBe("all done");
    const { meta: _meta, ...finished } = events.at(-1)!;
    expect(finished).toEqual({ type: "run-finished", ok: true });
    expect(bare(events).filter((e) => (e as { kind?: string }).kind === "driver.contract")).toEqual([
      {
        type: "notice",
        kind: "driver.contract",
        message: "scripted reported the turn interrupted, but the host did not interrupt it; the turn counts as completed",
        data: { driver: "scripted", check: "unasked-interrupt" },
      },
    ]);
  });

  it("an unasked interrupted: true does not hide a crash: a non-zero exit is an agent_error as for any completed turn", async () => {
    const driver = scriptedDriver(async () => ({ text: "", interrupted: true, exit: { code: 1, signal: null } }));
    const error = await new Agent(driver).run("hi").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).reason).toBe("agent_error");
    expect((error as RunError).details).toEqual({ exitCode: 1, exitSignal: null, driverClaimedSuccess: true });
    expect((error as RunError).result.status).toBe("completed");
  });

  it("a thread turn whose driver reports an interrupt nobody asked for commits as completed, and the next turn resumes after it", async () => {
    const scripted = scriptedDriver(async (request) => ({
      text: request.session ? "second" : "first",
      interrupted: true,
      checkpoint: { resumeId: "s1" },
    }));
    const { descriptor } = scripted;
    const driver = Object.assign(scripted, {
      descriptor: { ...descriptor, capabilities: { ...descriptor.capabilities, sessions: { resume: true, fork: false } } },
    });
    const thread = new Agent(driver, { threadStore: new MemoryThreadStore() }).thread("k");
    expect((await thread.run("one")).status).toBe("completed");
    const second = await thread.run("two");
    expect(second.status).toBe("completed");
    expect(second.text).toBe("second");
    expect(driver.requests.at(-1)?.session?.resumeId).toBe("s1");
  });
});
