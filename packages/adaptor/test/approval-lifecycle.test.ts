import { describe, expect, it } from "vitest";
import type { ApprovalDecision, DriverSink } from "@adaptor/driver";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import {
  Agent,
  ErrApprovalDenied,
  ErrApprovalEditUnsupported,
  ErrApprovalExpired,
  ErrApprovalResolved,
  ErrApprovalTimeout,
  RunError,
  isError,
  type AgentEvent,
  type ApprovalRequest,
} from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function noticesOf(events: AgentEvent[], kind: string) {
  return events.flatMap((e) => (e.type === "notice" && e.kind === kind ? [e] : []));
}

/** The error `fn` throws (fails the test when it does not throw). */
function thrownBy(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

/** Lets every pending promise callback run before continuing (a macrotask turn, not a timing). */
const afterMicrotasks = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe("late answers are harmless", () => {
  it("a handler answering after the timeout fallback (continue) applied gets ErrApprovalExpired; a notice records it; the run succeeds", async () => {
    const decided = deferred<ApprovalDecision>();
    const handlerThrew = deferred();
    const driver = scriptedDriver(async (_r, sink) => {
      const decision = await sink.requestApproval({ kind: "permission", title: "Write" });
      decided.resolve(decision);
      await handlerThrew.promise;
      await afterMicrotasks();
      return { text: JSON.stringify(decision) };
    });
    let late: unknown;
    const onApproval = async (request: ApprovalRequest): Promise<void> => {
      await decided.promise; // the deadline passed and the fallback already answered the CLI
      try {
        request.approve();
      } catch (error) {
        late = error;
        handlerThrew.resolve();
        throw error;
      }
    };
    const stream = new Agent(driver, { onApproval }).stream("p", { policy: { approvals: { timeoutMs: 50, onTimeout: "continue" } } });
    const events = await collect(stream);
    expect(JSON.parse((await stream.result()).text)).toEqual({ outcome: "deny", reason: "approval timed out" });
    expect(isError(late, ErrApprovalExpired)).toBe(true);
    expect(noticesOf(events, "approval.late-answer").map((n) => n.data)).toEqual([
      expect.objectContaining({ kind: "permission", attempt: 1, lost: "expired", attempted: "approve", status: "expired" }),
    ]);
    expect(noticesOf(events, "approval.handler-error")).toEqual([]);
    expect(driver.decisions).toEqual([{ outcome: "deny", reason: "approval timed out" }]);
  });

  it("under retry, attempt 1's handler answering late does not fail the run; attempt 2's answer stands", async () => {
    const secondAsked = deferred();
    const firstLate = deferred();
    const driver = scriptedDriver(async (_r, sink) => {
      const decision = await sink.requestApproval({ kind: "permission", title: "Write" });
      await afterMicrotasks();
      return { text: JSON.stringify(decision) };
    });
    const lateErrors: unknown[] = [];
    const onApproval = async (request: ApprovalRequest): Promise<void> => {
      if (request.attempt === 1) {
        await secondAsked.promise; // attempt 2 exists only after attempt 1 timed out
        try {
          request.approve();
        } finally {
          firstLate.resolve();
        }
        return;
      }
      secondAsked.resolve();
      await firstLate.promise;
      try {
        request.approve();
      } catch (error) {
        lateErrors.push(error);
      }
    };
    const stream = new Agent(driver, { onApproval }).stream("p", { policy: { approvals: { timeoutMs: 100, onTimeout: "retry" } } });
    const events = await collect(stream);
    expect(JSON.parse((await stream.result()).text)).toEqual({ outcome: "approve" });
    expect(lateErrors).toEqual([]);
    expect(noticesOf(events, "approval.late-answer").map((n) => n.data?.attempt)).toEqual([1]);
  });

  it("two answers race from the event loop: the loser gets ErrApprovalResolved, a notice records it, the winner stands", async () => {
    const driver = scriptedDriver(async (_r, sink) => ({
      text: JSON.stringify(await sink.requestApproval({ kind: "permission", title: "Bash: ls" })),
    }));
    const stream = new Agent(driver).stream("p");
    const events: AgentEvent[] = [];
    let loser: unknown;
    for await (const event of stream) {
      events.push(event);
      if (event.type !== "approval-request") continue;
      event.request.deny("from the phone");
      loser = thrownBy(() => event.request.approve());
    }
    expect(JSON.parse((await stream.result()).text)).toEqual({ outcome: "deny", reason: "from the phone" });
    expect(isError(loser, ErrApprovalResolved)).toBe(true);
    expect(isError(loser, ErrApprovalExpired)).toBe(false);
    const [notice] = noticesOf(events, "approval.late-answer");
    expect(notice?.data).toMatchObject({ lost: "resolved", attempted: "approve", status: "denied" });
    expect(notice?.message).toMatch(/^approval [0-9a-f-]+: the answer approve came after the request was already resolved; ignored$/);
  });

  it("many late answers to one request each get ErrApprovalResolved, and only the first is recorded (no flood of notices)", async () => {
    const driver = scriptedDriver(async (_r, sink) => ({
      text: JSON.stringify(await sink.requestApproval({ kind: "permission", title: "Bash: ls" })),
    }));
    const stream = new Agent(driver).stream("p");
    const events: AgentEvent[] = [];
    const losers: unknown[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type !== "approval-request") continue;
      event.request.approve();
      for (let i = 0; i < 100; i++) losers.push(thrownBy(() => (i % 2 ? event.request.approve() : event.request.deny("late"))));
    }
    expect(JSON.parse((await stream.result()).text)).toEqual({ outcome: "approve" });
    expect(losers).toHaveLength(100);
    expect(losers.every((error) => isError(error, ErrApprovalResolved))).toBe(true);
    expect(noticesOf(events, "approval.late-answer").map((n) => n.data)).toEqual([
      expect.objectContaining({ lost: "resolved", attempted: "deny", status: "approved" }),
    ]);
  });

  it("a stream consumer answering after the timeout fallback gets ErrApprovalExpired and the run goes on", async () => {
    const lateAnswered = deferred();
    const driver = scriptedDriver(async (_r, sink) => {
      const decision = await sink.requestApproval({ kind: "permission", title: "Write" });
      await lateAnswered.promise;
      return { text: JSON.stringify(decision) };
    });
    const stream = new Agent(driver).stream("p", { policy: { approvals: { timeoutMs: 50, onTimeout: "continue" } } });
    const events: AgentEvent[] = [];
    let held: ApprovalRequest | undefined;
    let late: unknown;
    for await (const event of stream) {
      events.push(event);
      if (event.type === "approval-request") held = event.request;
      if (event.type === "notice" && event.kind === "approval.resolved" && event.data?.outcome === "timeout") {
        late = thrownBy(() => held!.approve());
        lateAnswered.resolve();
      }
    }
    expect(JSON.parse((await stream.result()).text)).toEqual({ outcome: "deny", reason: "approval timed out" });
    expect(isError(late, ErrApprovalExpired)).toBe(true);
    expect(noticesOf(events, "approval.late-answer").map((n) => n.data?.lost)).toEqual(["expired"]);
  });

  it("a handler that throws after its own decision ends the run with its error as cause; the decision already sent stands", async () => {
    const boom = new Error("audit log unavailable");
    let decided: ApprovalDecision | undefined;
    const driver = scriptedDriver(async (_r, sink, signal) => {
      decided = await sink.requestApproval({ kind: "permission", title: "Write" });
      return untilAborted(signal);
    });
    const onApproval = (request: ApprovalRequest): void => {
      request.approve();
      throw boom;
    };
    const stream = new Agent(driver, { onApproval }).stream("p");
    const events = await collect(stream);
    const err = await stream.result().catch((e: unknown) => e);
    expect((err as Error).message).toBe("approval handler failed");
    expect((err as Error).cause).toBe(boom);
    expect(decided).toEqual({ outcome: "approve" });
    expect(noticesOf(events, "approval.resolved").map((n) => n.data?.outcome)).toEqual(["approved"]);
    expect(noticesOf(events, "approval.handler-error")).toEqual([]);
  });

  it("a throw of approve({ updatedInput }) the agent cannot run, passed on by the handler, ends the run: the edit is never silently lost", async () => {
    let decided: ApprovalDecision | undefined;
    const driver = scriptedDriver(async (_r, sink, signal) => {
      decided = await sink.requestApproval({ kind: "permission", title: "shell", input: { command: "ls" } });
      return untilAborted(signal);
    });
    const onApproval = (request: ApprovalRequest): void => request.approve({ updatedInput: { command: "ls -a" } });
    const err = await new Agent(driver, { onApproval }).run("p").catch((e: unknown) => e);
    expect((err as Error).message).toBe("approval handler failed");
    expect(isError((err as Error).cause, ErrApprovalEditUnsupported)).toBe(true);
    expect(decided).toEqual({ outcome: "deny", reason: expect.stringMatching(/edited input/) });
  });

  it("a handler that throws before any decision still ends the run, with its error as cause", async () => {
    const boom = new Error("ui crashed");
    const driver = scriptedDriver(async (_r, sink, signal) => {
      await sink.requestApproval({ kind: "permission", title: "Write" });
      return untilAborted(signal);
    });
    const onApproval = (): void => {
      throw boom;
    };
    const err = await new Agent(driver, { onApproval })
      .run("p", { policy: { approvals: { onTimeout: "continue" } } })
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe("approval handler failed");
    expect((err as Error).cause).toBe(boom);
  });
});

describe("approvals after the driver returned or the run ended", () => {
  it("an approval asked after driver.run returned (while the checkpoint is written) is denied at once; the handler is not called", async () => {
    let captured: DriverSink | undefined;
    let handlerCalls = 0;
    let lateDecision: ApprovalDecision | undefined;
    const driver = scriptedDriver(async (_r, sink) => {
      captured = sink;
      return { text: "done", checkpoint: { resumeId: "s1" } };
    });
    const inner = new MemoryThreadStore();
    const store: ThreadStore = {
      resolve: (q, s) => inner.resolve(q, s),
      acquireLease: (t, o, ttl, s) => inner.acquireLease(t, o, ttl, s),
      renewLease: (l, ttl, s) => inner.renewLease(l, ttl, s),
      releaseLease: (l, s) => inner.releaseLease(l, s),
      finalize: async (r, s) => {
        // The CLI sends one more permission request after its terminal result.
        lateDecision = await captured!.requestApproval({
          kind: "permission",
          title: "Bash: rm -rf /",
          toolName: "Bash",
          toolCallId: "late-1",
        });
        return inner.finalize(r, s);
      },
      close: () => inner.close(),
    };
    const stream = new Agent(driver, { threadStore: store, onApproval: (r) => (handlerCalls++, r.approve()) }).thread("k").stream("p");
    const events = await collect(stream);
    expect((await stream.result()).text).toBe("done");
    expect(handlerCalls).toBe(0);
    expect(lateDecision).toEqual({ outcome: "deny", reason: "approval requested after the driver returned; denied without asking" });
    expect(events.some((e) => e.type === "approval-request")).toBe(false);
    expect(noticesOf(events, "approval.late-request").map((n) => n.data)).toEqual([
      { kind: "permission", title: "Bash: rm -rf /", toolName: "Bash", toolCallId: "late-1", when: "after the driver returned" },
    ]);
  });

  it("an approval asked after the run finished (events closed) resolves to a deny, emits nothing and throws nothing", async () => {
    let captured: DriverSink | undefined;
    let handlerCalls = 0;
    const driver = scriptedDriver(async (_r, sink) => {
      captured = sink;
      return { text: "done" };
    });
    const stream = new Agent(driver, { onApproval: (r) => (handlerCalls++, r.approve()) }).stream("p");
    const events = await collect(stream);
    await stream.result();
    const decision = await captured!.requestApproval({ kind: "permission", title: "Write" });
    expect(decision.outcome).toBe("deny");
    expect(handlerCalls).toBe(0);
    expect(events.at(-1)?.type).toBe("run-finished");
  });

  it("an approval asked while the run is being cancelled is denied at once with a notice, never shown as an approval-request", async () => {
    let handlerCalls = 0;
    const started = deferred();
    const driver = scriptedDriver(async (_r, sink, signal) => {
      started.resolve();
      await untilAborted(signal).catch(() => undefined);
      const decision = await sink.requestApproval({ kind: "plan_review", title: "Plan: refactor" });
      return Promise.reject(new Error(`cancelled (CLI was told ${decision.outcome})`, { cause: signal.reason }));
    });
    const stream = new Agent(driver, { onApproval: (r) => (handlerCalls++, r.approve()) }).stream("p");
    const events: AgentEvent[] = [];
    const reading = (async () => {
      for await (const event of stream) events.push(event);
    })();
    await started.promise;
    stream.cancel();
    await reading;
    const verdict = (await stream.result().catch((e: unknown) => e)) as Error;
    expect(verdict.message).toBe("cancelled (CLI was told deny)");
    expect((verdict.cause as Error).name).toBe("AbortError");
    expect(handlerCalls).toBe(0);
    expect(driver.decisions).toEqual([{ outcome: "deny", reason: "approval requested after the run ended; denied without asking" }]);
    expect(events.some((e) => e.type === "approval-request")).toBe(false);
    expect(noticesOf(events, "approval.late-request").map((n) => n.data?.when)).toEqual(["after the run ended"]);
  });
});

describe("an approval nobody can answer fails at once", () => {
  /** Asks once; without an answer waits for the abort (no approval deadline in these tests). */
  function askingDriver(kind: "permission" | "question" = "permission") {
    return scriptedDriver(async (_r, sink, signal) => {
      const decision = await sink.requestApproval({ kind, title: "Bash: npm test", toolName: "Bash", toolCallId: "c1" });
      if (decision.outcome === "deny") {
        await untilAborted(signal).catch(() => undefined);
        signal.throwIfAborted();
      }
      return { text: JSON.stringify(decision) };
    });
  }
  // No deadline: without the fail-fast, these runs would wait forever (and the test time out).
  const noDeadline = { approvals: { timeoutMs: -1 } } as const;

  it("agent.run() without onApproval in ask mode: RunError approval_denied (nothing timed out) at once, saying what to do", async () => {
    const driver = askingDriver();
    const err = await new Agent(driver).run("p", { policy: noDeadline }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect(isError(err, ErrApprovalDenied)).toBe(true);
    expect(isError(err, ErrApprovalTimeout)).toBe(false);
    const runError = err as RunError;
    expect(runError.reason).toBe("approval_denied");
    expect(runError.message).toBe(
      "Bash: npm test: denied, since nobody can answer this permission request: the run was started with run(), which drains its events, " +
        "and has no onApproval handler. Pass onApproval, or use stream() and answer the approval-request event, " +
        'or set policy.approvals.permission to "auto_approve" or "auto_deny"',
    );
    expect(runError.details).toEqual({ kind: "permission", toolName: "Bash", toolCallId: "c1", attempt: 1, unanswerable: true });
    expect(runError.result).toBeDefined();
    expect(driver.decisions).toEqual([{ outcome: "deny", reason: "nobody can answer approvals in this run" }]);
  });

  it("thread.run() without onApproval fails the same way, and the lease is released", async () => {
    const store = new MemoryThreadStore();
    const err = await new Agent(askingDriver(), { threadStore: store })
      .thread("k")
      .run("p", { policy: noDeadline })
      .catch((e: unknown) => e);
    expect(isError(err, ErrApprovalDenied)).toBe(true);
    expect((err as RunError).details).toMatchObject({ unanswerable: true });
    const ok = scriptedDriver(async () => ({ text: "ok", checkpoint: { resumeId: "s" } }));
    expect((await new Agent(ok, { threadStore: store }).thread("k").run("again")).text).toBe("ok");
  });

  it("a question in ask mode names the only auto mode a question has", async () => {
    const err = await new Agent(askingDriver("question"))
      .run("p", { policy: { approvals: { timeoutMs: -1, question: "ask" } } })
      .catch((e: unknown) => e);
    expect((err as RunError).message).toMatch(/set policy\.approvals\.question to "auto_deny"$/);
  });

  it("stream() consumers can still answer: the same run through stream() succeeds", async () => {
    const stream = new Agent(askingDriver()).stream("p", { policy: noDeadline });
    for await (const event of stream) if (event.type === "approval-request") event.request.approve();
    expect(JSON.parse((await stream.result()).text)).toEqual({ outcome: "approve" });
  });

  it("run() with an onApproval handler (agent default) is answerable as before", async () => {
    const result = await new Agent(askingDriver(), { onApproval: (r) => r.approve() }).run("p", { policy: noDeadline });
    expect(JSON.parse(result.text)).toEqual({ outcome: "approve" });
  });

  it("run() with onTimeout continue: denied at once and the run goes on", async () => {
    const driver = scriptedDriver(async (_r, sink) => ({
      text: JSON.stringify(await sink.requestApproval({ kind: "permission", title: "Write" })),
    }));
    const result = await new Agent(driver).run("p", { policy: { approvals: { timeoutMs: -1, onTimeout: "continue" } } });
    expect(JSON.parse(result.text)).toEqual({ outcome: "deny", reason: "nobody can answer approvals in this run" });
  });

  it("run() in auto modes never needs an answer", async () => {
    const result = await new Agent(askingDriver()).run("p", { policy: { approvals: { permission: "auto_approve" } } });
    expect(JSON.parse(result.text)).toEqual({ outcome: "approve" });
  });
});
