import { describe, expect, it } from "vitest";
import { MCP_CONNECT_OP, type ApprovalDecision, type DriverCapabilities } from "@adaptor/driver";
import {
  Agent,
  ApprovalRequest,
  DriverError,
  ErrCode,
  ErrApprovalDenied,
  ErrApprovalEditUnsupported,
  ErrApprovalResolved,
  ErrApprovalTimeout,
  ErrAgentFailed,
  ErrHumanDecisionModeUnsupported,
  ErrInvalidPolicy,
  ErrPolicyCapabilityUnsupported,
  ErrPolicyViolation,
  HumanDecisionModeUnsupportedError,
  InvalidOptionError,
  InvalidPolicyError,
  PolicyCapabilityUnsupportedError,
  RunError,
  approveAll,
  denyAll,
  findError,
  isError,
  policyReadOnly,
  type AgentEvent,
  type ApprovalHandler,
  type Policy,
} from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** A driver that asks once, then reports the decision it got as its text, unless aborted. */
function askingDriver(kind: "permission" | "plan_review" | "question" = "permission") {
  return scriptedDriver(async (_r, sink, signal) => {
    const decision = await sink.requestApproval({ kind, title: "Bash: rm -rf build", toolName: "Bash" });
    await new Promise((r) => setTimeout(r, 5));
    signal.throwIfAborted();
    return { text: JSON.stringify(decision) };
  });
}

describe("exactly once under load", () => {
  it("1,000 requests each answered twice concurrently: 1,000 winners, 1,000 ErrApprovalResolved, one reply each", async () => {
    const N = 1000;
    const driver = scriptedDriver(async (_r, sink) => {
      const decisions = await Promise.all(
        Array.from({ length: N }, (_, i) => sink.requestApproval({ kind: "permission", title: `op ${i}` })),
      );
      return { text: String(decisions.length) };
    });
    let wins = 0;
    let resolved = 0;
    const stream = new Agent(driver, { eventBuffer: 10 }).stream("p", { policy: { approvals: { timeoutMs: -1 } } });
    const answers: Promise<void>[] = [];
    for await (const event of stream) {
      if (event.type !== "approval-request") continue;
      const request = event.request;
      const attempt = (fn: () => void) =>
        Promise.resolve().then(() => {
          try {
            fn();
            wins++;
          } catch (error) {
            if (isError(error, ErrApprovalResolved)) resolved++;
            else throw error;
          }
        });
      answers.push(
        attempt(() => request.approve()),
        attempt(() => request.deny("racing")),
      );
    }
    await Promise.all(answers);
    expect((await stream.result()).text).toBe(String(N));
    expect(wins).toBe(N);
    expect(resolved).toBe(N);
    expect(driver.decisions).toHaveLength(N); // the driver (the CLI) got exactly one reply per request
  });
});

describe("deadlines and fallbacks", () => {
  it("timeout → abort: RunError approval_timeout, the driver is stopped", async () => {
    const driver = scriptedDriver(async (_r, sink, signal) => {
      await sink.requestApproval({ kind: "permission", title: "Write" });
      await untilAborted(signal);
      return {};
    });
    // A stream consumer that sees the request and never answers it.
    const stream = new Agent(driver).stream("p", { policy: { approvals: { timeoutMs: 30 } } });
    await collect(stream);
    const err = await stream.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect(isError(err, ErrApprovalTimeout)).toBe(true);
    expect((err as RunError).reason).toBe("approval_timeout");
    expect(driver.decisions).toEqual([{ outcome: "deny", reason: "approval timed out" }]);
  });

  it("timeout → continue: the run finishes and the denial reaches the agent", async () => {
    const stream = new Agent(askingDriver()).stream("p", { policy: { approvals: { timeoutMs: 20, onTimeout: "continue" } } });
    await collect(stream);
    const result = await stream.result();
    expect(JSON.parse(result.text)).toEqual({ outcome: "deny", reason: "approval timed out" });
  });

  it("timeout → retry: a new request with a new id and attempt 2 is asked and answered", async () => {
    const stream = new Agent(askingDriver()).stream("p", { policy: { approvals: { timeoutMs: 30, onTimeout: "retry" } } });
    const seen: ApprovalRequest[] = [];
    for await (const event of stream) {
      if (event.type !== "approval-request") continue;
      seen.push(event.request);
      if (event.request.attempt === 2) event.request.approve();
    }
    expect(JSON.parse((await stream.result()).text)).toEqual({ outcome: "approve" });
    expect(seen.map((r) => r.attempt)).toEqual([1, 2]);
    expect(seen[0]!.id).not.toBe(seen[1]!.id);
    expect(seen[0]!.status).toBe("expired");
    expect(seen[1]!.deadline!.getTime() - seen[1]!.createdAt.getTime()).toBe(30);
  });

  it("retry gives up after maxRetries and aborts", async () => {
    const err = await new Agent(askingDriver(), { onApproval: (r) => r.deny("no") })
      .run("p", { policy: { approvals: { onReject: "retry", maxRetries: 2 } } })
      .catch((e: unknown) => e);
    expect(isError(err, ErrApprovalDenied)).toBe(true);
    expect((err as RunError).details).toMatchObject({ attempt: 3 });
  });

  it("reject → abort: RunError approval_denied; reject → continue (default): the denial reaches the agent", async () => {
    const aborted = await new Agent(askingDriver(), { onApproval: (r) => r.deny("nope") })
      .run("p", { policy: { approvals: { onReject: "abort" } } })
      .catch((e: unknown) => e);
    expect(isError(aborted, ErrApprovalDenied)).toBe(true);
    expect((aborted as RunError).result).toBeDefined();
    const continued = await new Agent(askingDriver(), { onApproval: (r) => r.deny("nope") }).run("p");
    expect(JSON.parse(continued.text)).toEqual({ outcome: "deny", reason: "nope" });
  });

  it("a timed-out request does not break the next request in the same run", async () => {
    const driver = scriptedDriver(async (_r, sink) => {
      const first = await sink.requestApproval({ kind: "permission", title: "first" });
      const second = await sink.requestApproval({ kind: "permission", title: "second" });
      return { text: JSON.stringify([first.outcome, second.outcome]) };
    });
    const stream = new Agent(driver).stream("p", { policy: { approvals: { timeoutMs: 40, onTimeout: "continue" } } });
    for await (const event of stream) {
      if (event.type === "approval-request" && event.request.title === "second") event.request.approve();
    }
    expect(JSON.parse((await stream.result()).text)).toEqual(["deny", "approve"]);
  });

  it("a handler's deadline check runs when the deadline comes, the request stays pending meanwhile, and an answer it applies wins over the timeout", async () => {
    let entered!: () => void;
    const reached = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked: ApprovalRequest | undefined;
    const agent = new Agent(askingDriver(), {
      onApproval: (request, context) => {
        asked = request;
        // An answer recorded elsewhere, found when the deadline closes the record.
        context.beforeDeadline(async () => {
          entered();
          await held;
          request.approve();
        });
        return untilAborted(context.signal);
      },
    });
    const running = agent.run("p", { policy: { approvals: { timeoutMs: 20 } } });
    await reached;
    expect(asked!.status).toBe("pending");
    release();
    const result = await running;
    expect(JSON.parse(result.text)).toEqual({ outcome: "approve" });
    expect(asked!.status).toBe("approved");
  });

  it.each(["resolves", "rejects"] as const)(
    "a deadline check that %s without deciding lets the deadline's fallback act; the handler may return once it ran",
    async (how) => {
      let checked = 0;
      const handler: ApprovalHandler = (_request, context) =>
        new Promise<void>((resolve) => {
          context.beforeDeadline(async () => {
            checked++;
            // The handler returns while its check runs: not an undecided handler, the deadline decides.
            resolve();
            await Promise.resolve();
            if (how === "rejects") throw new Error("the record is unreachable");
          });
        });
      const aborting = await new Agent(askingDriver(), { onApproval: handler })
        .run("p", { policy: { approvals: { timeoutMs: 20 } } })
        .catch((e: unknown) => e);
      expect(isError(aborting, ErrApprovalTimeout)).toBe(true);
      const stream = new Agent(askingDriver(), { onApproval: handler }).stream("p", {
        policy: { approvals: { timeoutMs: 20, onTimeout: "continue" } },
      });
      const notices = (await collect(stream)).filter((e) => e.type === "notice" && e.kind === "approval.handler-error");
      expect(JSON.parse((await stream.result()).text)).toEqual({ outcome: "deny", reason: "approval timed out" });
      expect(checked).toBe(2);
      expect(notices.map((e) => (e as { message?: string }).message)).toEqual(
        how === "rejects" ? [expect.stringContaining("the deadline's check failed; the deadline applies")] : [],
      );
    },
  );

  it("a handler that returns without deciding is an agent failure and the driver is denied", async () => {
    const driver = askingDriver();
    const err = await new Agent(driver, { onApproval: () => undefined }).run("p").catch((e: unknown) => e);
    expect(isError(err, ErrAgentFailed)).toBe(true);
    expect(driver.decisions).toEqual([{ outcome: "deny", reason: "approval handler returned without a decision" }]);
  });
});

describe("modes and helpers", () => {
  it("auto_approve and auto_deny decide without asking, with audit notices", async () => {
    const stream = new Agent(askingDriver()).stream("p", { policy: { approvals: { permission: "auto_approve" } } });
    const events = await collect(stream);
    expect(JSON.parse((await stream.result()).text)).toEqual({ outcome: "approve" });
    expect(events.some((e) => e.type === "approval-request")).toBe(false);
    expect(events.filter((e) => e.type === "notice").map((e) => e.type === "notice" && e.data?.outcome)).toEqual([undefined, "approved"]);
    const denied = await new Agent(askingDriver()).run("p", { policy: { approvals: { permission: "auto_deny" } } });
    expect(JSON.parse(denied.text)).toEqual({ outcome: "deny", reason: "denied by policy" });
  });

  it("questions are auto-denied by default; approveAll still denies questions, denyAll denies everything", async () => {
    expect(JSON.parse((await new Agent(askingDriver("question")).run("p")).text).outcome).toBe("deny");
    const asked = await new Agent(askingDriver("question"), { onApproval: approveAll() }).run("p", {
      policy: { approvals: { question: "ask" } },
    });
    expect(JSON.parse(asked.text).outcome).toBe("deny");
    const plan = await new Agent(askingDriver("plan_review"), { onApproval: approveAll() }).run("p");
    expect(JSON.parse(plan.text).outcome).toBe("approve");
    const denied = await new Agent(askingDriver(), { onApproval: denyAll("policy says no") }).run("p");
    expect(JSON.parse(denied.text)).toEqual({ outcome: "deny", reason: "policy says no" });
  });

  it("a question answered by choice reaches the driver", async () => {
    const stream = new Agent(askingDriver("question")).stream("p", { policy: { approvals: { question: "ask" } } });
    for await (const event of stream) if (event.type === "approval-request") event.request.answer("postgres");
    const decision = JSON.parse((await stream.result()).text) as ApprovalDecision;
    expect(decision).toEqual({ outcome: "answer", choice: "postgres" });
  });
});

describe("edited inputs: approve({ updatedInput })", () => {
  /** A driver that asks once (editable or not) and reports the decision it got as its text. */
  function editDriver(inputEditable: boolean | undefined) {
    return scriptedDriver(async (_r, sink) => {
      const ask = { kind: "permission" as const, title: "Write: a.txt", toolName: "Write", input: { file_path: "a.txt" } };
      const decision = await sink.requestApproval(inputEditable === undefined ? ask : { ...ask, inputEditable });
      return { text: JSON.stringify(decision) };
    });
  }

  it.each([
    ["null", null],
    ["a string", "x"],
    ["an array", [1]],
    ["a number", 3],
    ["a class instance", new Date(0)],
  ])("updatedInput %s: InvalidOptionError at once and the request stays pending (every driver)", async (_name, value) => {
    for (const editable of [true, false, undefined]) {
      const thrown: unknown[] = [];
      const result = await new Agent(editDriver(editable), {
        onApproval: (request) => {
          try {
            request.approve({ updatedInput: value });
          } catch (error) {
            thrown.push(error);
          }
          expect(request.status).toBe("pending");
          request.approve();
        },
      }).run("p");
      expect(thrown[0]).toBeInstanceOf(InvalidOptionError);
      expect(thrown[0]).toMatchObject({ subject: "approve()", field: "updatedInput" });
      expect(JSON.parse(result.text)).toEqual({ outcome: "approve" });
    }
  });

  it("an editable ask: the plain-object edit reaches the driver; updatedInput undefined is no edit", async () => {
    const edited = await new Agent(editDriver(true), { onApproval: (r) => r.approve({ updatedInput: { file_path: "b.txt" } }) }).run("p");
    expect(JSON.parse(edited.text)).toEqual({ outcome: "approve", updatedInput: { file_path: "b.txt" } });
    const plain = await new Agent(editDriver(false), { onApproval: (r) => r.approve({ updatedInput: undefined }) }).run("p");
    expect(JSON.parse(plain.text)).toEqual({ outcome: "approve" });
  });

  it("an ask that is not editable: the edit is refused with ErrApprovalEditUnsupported and the driver gets a deny", async () => {
    let thrown: unknown;
    let status: string | undefined;
    const result = await new Agent(editDriver(undefined), {
      onApproval: (request) => {
        expect(request.inputEditable).toBe(false);
        try {
          request.approve({ updatedInput: { file_path: "b.txt" } });
        } catch (error) {
          thrown = error;
        }
        status = request.status;
      },
    }).run("p");
    expect(isError(thrown, ErrApprovalEditUnsupported)).toBe(true);
    expect(status).toBe("denied");
    expect(JSON.parse(result.text)).toMatchObject({ outcome: "deny", reason: expect.stringContaining("edited input") });
  });
});

describe("run policy validation before launch", () => {
  const caps = (over: Partial<DriverCapabilities>) => over;
  function driverWith(capabilities: Partial<DriverCapabilities>) {
    const d = scriptedDriver(async () => ({ text: "ran" }));
    return Object.assign(d, { descriptor: { ...d.descriptor, capabilities: { ...d.descriptor.capabilities, ...capabilities } } });
  }
  const cases: [string, Policy, unknown, Record<string, string>][] = [
    ["out-of-domain sandbox", { sandbox: "jail" as never }, InvalidPolicyError, { field: "sandbox", value: "jail" }],
    ["question auto_approve", { approvals: { question: "auto_approve" as never } }, InvalidPolicyError, { field: "approvals.question" }],
    ["negative maxRetries", { approvals: { maxRetries: -1 } }, InvalidPolicyError, { field: "approvals.maxRetries" }],
    ["negative budget", { activeExecutionTimeoutMs: -5 }, InvalidPolicyError, { field: "activeExecutionTimeoutMs" }],
    ["unsupported sandbox", policyReadOnly, PolicyCapabilityUnsupportedError, { dimension: "sandbox", value: "read_only" }],
    ["unsupported web search", { webSearch: "deny" }, PolicyCapabilityUnsupportedError, { dimension: "webSearch" }],
    [
      "unsupported approval mode",
      { approvals: { plan_review: "auto_deny" } },
      HumanDecisionModeUnsupportedError,
      { kind: "plan_review", mode: "auto_deny" },
    ],
  ];
  for (const [name, policy, ErrorClass, fields] of cases) {
    it(`${name} is refused before the driver runs`, async () => {
      const driver = driverWith(caps({ approvals: { permission: ["ask"], plan_review: ["ask"], question: ["ask"] } }));
      const err = await new Agent(driver).run("p", { policy }).catch((e: unknown) => e);
      const found = findError(err, ErrorClass as typeof InvalidPolicyError);
      expect(found).toMatchObject({ driver: "scripted", ...fields });
      expect(driver.requests).toHaveLength(0);
      expect(isError(err, ErrPolicyViolation)).toBe(false);
    });
  }
  it("checks the domain before capabilities, and capabilities before approval modes", async () => {
    const driver = driverWith({});
    const both = await new Agent(driver)
      .run("p", { policy: { sandbox: "read_only", webSearch: "maybe" as never } })
      .catch((e: unknown) => e);
    expect(isError(both, ErrInvalidPolicy)).toBe(true);
    const capsFirst = await new Agent(driver)
      .run("p", { policy: { sandbox: "read_only", approvals: { permission: "auto_deny" } } })
      .catch((e: unknown) => e);
    expect(isError(capsFirst, ErrPolicyCapabilityUnsupported)).toBe(true);
    expect(isError(capsFirst, ErrHumanDecisionModeUnsupported)).toBe(false);
  });
  it("supported values reach the driver; inherit and unset are never capability requests", async () => {
    const driver = driverWith({ policy: { sandbox: ["read_only"], webSearch: [], browser: [], activeExecutionTimeout: true } });
    await new Agent(driver).run("p", { policy: { sandbox: "read_only", approvals: { permission: "inherit", question: "inherit" } } });
    expect(driver.requests[0]?.policy).toEqual({ sandbox: "read_only", approvals: { permission: "inherit", question: "inherit" } });
  });
});

describe("active-execution budget", () => {
  it("pauses while a human is asked: a 600 ms wait does not exhaust a 300 ms budget", async () => {
    const driver = scriptedDriver(async (_r, sink, signal) => {
      const d = await sink.requestApproval({ kind: "permission", title: "Write" });
      signal.throwIfAborted();
      return { text: d.outcome };
    });
    const stream = new Agent(driver).stream("p", { policy: { activeExecutionTimeoutMs: 300 } });
    for await (const event of stream) {
      if (event.type === "approval-request") setTimeout(() => event.request.approve(), 600);
    }
    expect((await stream.result()).text).toBe("approve");
  });

  it("is exhausted without a human wait: RunError active_execution_timeout with the limit", async () => {
    const driver = scriptedDriver(async (_r, _s, signal) => untilAborted(signal));
    const err = await new Agent(driver).run("p", { policy: { activeExecutionTimeoutMs: 50 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).reason).toBe("active_execution_timeout");
    expect((err as RunError).details).toEqual({ limitMs: 50 });
  });

  it("exhausted while the CLI starts MCP servers: the RunError says so, the driver's mcp connect error stays its cause", async () => {
    const connect = new DriverError({
      op: MCP_CONNECT_OP,
      device: "files",
      code: ErrCode.DeviceDisconnected,
      cause: "still starting when the run was stopped",
    });
    const starting = scriptedDriver(async (_r, _s, signal) => untilAborted(signal).catch(() => Promise.reject(connect)));
    const err = await new Agent(starting).run("p", { policy: { activeExecutionTimeoutMs: 50 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).reason).toBe("active_execution_timeout");
    expect((err as RunError).message).toBe("active execution budget of 50 ms exhausted while starting MCP servers");
    expect((err as RunError).cause).toBe(connect);
    // Any other driver error around the stop leaves the message as it is.
    const other = new DriverError({ op: "read", device: "stdout", code: ErrCode.BrokenPipe, cause: "closed" });
    const elsewhere = scriptedDriver(async (_r, _s, signal) => untilAborted(signal).catch(() => Promise.reject(other)));
    const plain = await new Agent(elsewhere).run("p", { policy: { activeExecutionTimeoutMs: 50 } }).catch((e: unknown) => e);
    expect((plain as RunError).message).toBe("active execution budget of 50 ms exhausted");
    expect((plain as RunError).cause).toBe(other);
  });
});
