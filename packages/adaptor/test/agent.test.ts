import { describe, expect, it } from "vitest";
import {
  Agent,
  AdaptorError,
  DriverError,
  ErrAgentClosed,
  ErrAgentFailed,
  ErrApprovalExpired,
  ErrApprovalKindMismatch,
  ErrApprovalResolved,
  ErrApprovalUnavailable,
  ErrInvalidDriverConfig,
  ErrRunCancelled,
  ApprovalRequest,
  InvalidDriverConfigError,
  InvalidOptionError,
  RunError,
  findError,
  isError,
  type AgentEvent,
} from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("Agent.stream and run", () => {
  it("emits run-started first, run-finished last, with strictly increasing sequence", async () => {
    const driver = scriptedDriver(async (_req, sink) => {
      sink.emit({ type: "text-delta", text: "hel" });
      sink.emit({ type: "text-delta", text: "lo" });
      return { text: "hello", usage: { inputTokens: 3, outputTokens: 2 } };
    });
    const stream = new Agent(driver).stream("hi");
    const events = await collect(stream);
    expect(events.map((e) => e.type)).toEqual(["run-started", "text-delta", "text-delta", "run-finished"]);
    expect(events.map((e) => e.meta.sequence)).toEqual([1, 2, 3, 4]);
    expect(events.every((e) => e.meta.runId === stream.runId)).toBe(true);
    const result = await stream.result();
    expect(result.text).toBe("hello");
    expect(result.usage).toEqual({ inputTokens: 3, outputTokens: 2 });
    expect(await stream.result()).toBe(result); // repeatable
  });

  it("uses UUID v7 run ids", async () => {
    const agent = new Agent(scriptedDriver(async () => ({ text: "x" })));
    const result = await agent.run("p");
    expect(result.runId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("keeps usage undefined when unreported and zeros when reported as zero", async () => {
    const none = await new Agent(scriptedDriver(async () => ({ text: "a" }))).run("p");
    const zero = await new Agent(scriptedDriver(async () => ({ text: "a", usage: { inputTokens: 0, outputTokens: 0 } }))).run("p");
    expect(none.usage).toBeUndefined();
    expect(zero.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it("merges call options over agent defaults and passes them to the driver", async () => {
    const driver = scriptedDriver(async () => ({ text: "ok" }));
    const agent = new Agent(driver, { model: "m1", env: { A: "1", B: "1" }, metadata: { team: "x" } });
    await agent.run("p", { model: "m2", env: { B: "2" }, metadata: { job: 7 } });
    expect(driver.requests[0]).toMatchObject({ prompt: "p", model: "m2", env: { A: "1", B: "2" }, metadata: { team: "x", job: 7 } });
  });

  it("rejects a classified business failure with RunError carrying the partial Result", async () => {
    const driver = scriptedDriver(async () => ({
      text: "",
      usage: { inputTokens: 5, outputTokens: 0 },
      failure: { reason: "agent_error", message: "API Error: 400 bad", details: { apiErrorStatus: 400 } },
    }));
    const stream = new Agent(driver).stream("p");
    const events = await collect(stream);
    const err = await stream.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    const runError = err as RunError;
    expect(runError.reason).toBe("agent_error");
    expect(runError.message).toBe("API Error: 400 bad");
    expect(runError.details).toEqual({ apiErrorStatus: 400 });
    expect(runError.result.usage).toEqual({ inputTokens: 5, outputTokens: 0 });
    expect(isError(err, ErrAgentFailed)).toBe(true);
    expect(isError(err, ErrRunCancelled)).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false, reason: "agent_error" });
  });

  it("rejects an infrastructure failure with the driver's error, cause chain intact", async () => {
    const boom = new DriverError({ op: "spawn", device: "x", code: "NOT_FOUND", cause: "executable not found on PATH" });
    const stream = new Agent(scriptedDriver(async () => Promise.reject(boom))).stream("p");
    await expect(stream.result()).rejects.toBe(boom);
  });

  it("wraps a validateConfig failure as InvalidDriverConfigError and never runs the driver", async () => {
    const driver = scriptedDriver(async () => ({ text: "never" }), {
      validateConfig: () => {
        throw new Error("bad field");
      },
    });
    const err = await new Agent(driver).run("p").catch((e: unknown) => e);
    expect(isError(err, ErrInvalidDriverConfig)).toBe(true);
    expect(findError(err, InvalidDriverConfigError)?.driver).toBe("scripted");
    expect(driver.requests).toHaveLength(0);
  });
});

describe("cancellation, timeout, close", () => {
  it("cancel() is idempotent and the verdict is an AbortError that does not match ErrRunCancelled", async () => {
    const stream = new Agent(scriptedDriver((_r, _s, signal) => untilAborted(signal))).stream("p");
    setTimeout(() => {
      stream.cancel();
      stream.cancel();
    }, 10);
    const err = await stream.result().catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect(isError(err, ErrRunCancelled)).toBe(false);
  });

  it("an aborted caller signal cancels the run with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("host shutdown");
    const promise = new Agent(scriptedDriver((_r, _s, signal) => untilAborted(signal))).run("p", { signal: controller.signal });
    controller.abort(reason);
    await expect(promise).rejects.toBe(reason);
  });

  it("timeoutMs rejects with a DriverError TIMEOUT", async () => {
    const err = await new Agent(scriptedDriver((_r, _s, signal) => untilAborted(signal)))
      .run("p", { timeoutMs: 20 })
      .catch((e: unknown) => e);
    expect(findError(err, DriverError)?.code).toBe("TIMEOUT");
    expect(isError(err, ErrRunCancelled)).toBe(false);
  });

  it("breaking out of the event loop cancels the run", async () => {
    let aborted = false;
    const stream = new Agent(
      scriptedDriver(async (_r, sink, signal) => {
        sink.emit({ type: "text-delta", text: "x" });
        await untilAborted(signal).catch(() => (aborted = true));
        throw signal.reason;
      }),
    ).stream("p");
    for await (const event of stream) if (event.type === "text-delta") break;
    await stream.result().catch(() => undefined);
    expect(aborted).toBe(true);
  });

  it("close() cancels runs in flight, is idempotent, and later runs reject with ErrAgentClosed", async () => {
    let closedDriver = 0;
    const agent = new Agent(scriptedDriver((_r, _s, signal) => untilAborted(signal), { close: async () => void closedDriver++ }));
    const inflight = agent.run("p");
    await new Promise((r) => setTimeout(r, 5));
    const first = agent.close();
    expect(agent.close()).toBe(first);
    await first;
    expect(isError(await inflight.catch((e: unknown) => e), ErrAgentClosed)).toBe(true);
    expect(closedDriver).toBe(1);
    const later = agent.stream("again");
    const events = await collect(later);
    expect(events.map((e) => e.type)).toEqual(["run-finished"]);
    expect(isError(await later.result().catch((e: unknown) => e), ErrAgentClosed)).toBe(true);
  });

  it("a failed close() can be retried: the next call closes the driver again, then close() is settled", async () => {
    const failure = new Error("pool close failed");
    let calls = 0;
    const agent = new Agent(
      scriptedDriver(async () => ({ text: "x" }), {
        close: async () => {
          calls++;
          if (calls === 1) throw failure;
        },
      }),
    );
    await agent.run("p");
    const first = agent.close();
    expect(agent.close()).toBe(first);
    expect(await first.catch((e: unknown) => e)).toBe(failure);
    // Still closed to runs while the close is to be retried.
    expect(isError(await agent.run("again").catch((e: unknown) => e), ErrAgentClosed)).toBe(true);
    const second = agent.close();
    expect(second).not.toBe(first);
    await second;
    expect(calls).toBe(2);
    expect(agent.close()).toBe(second);
    await agent.close();
    expect(calls).toBe(2);
  });

  it("supports await using", async () => {
    let closed = false;
    {
      await using agent = new Agent(scriptedDriver(async () => ({ text: "x" }), { close: async () => void (closed = true) }));
      await agent.run("p");
    }
    expect(closed).toBe(true);
  });
});

describe("approvals, first form", () => {
  const askTwice = scriptedDriver(async (_r, sink) => {
    const decision = await sink.requestApproval({
      kind: "permission",
      title: "Bash: ls",
      toolName: "Bash",
      toolCallId: "t1",
      input: { command: "ls" },
      inputEditable: true,
    });
    return { text: JSON.stringify(decision) };
  });

  it("an approval-request event answered from the loop reaches the driver exactly once", async () => {
    const stream = new Agent(askTwice).stream("p");
    let second: unknown;
    for await (const event of stream) {
      if (event.type !== "approval-request") continue;
      expect(event.request).toMatchObject({ kind: "permission", toolName: "Bash", toolCallId: "t1", attempt: 1 });
      event.request.approve({ updatedInput: { command: "ls -la" } });
      try {
        event.request.deny("late");
      } catch (e) {
        second = e;
      }
    }
    expect(JSON.parse((await stream.result()).text)).toEqual({ outcome: "approve", updatedInput: { command: "ls -la" } });
    expect(isError(second, ErrApprovalResolved)).toBe(true);
    expect(isError(second, ErrApprovalExpired)).toBe(false);
  });

  it("onApproval handler answers, and audit notices record the outcome", async () => {
    const stream = new Agent(askTwice, { onApproval: (request) => request.deny("not today") }).stream("p");
    const events = await collect(stream);
    expect(JSON.parse((await stream.result()).text)).toEqual({ outcome: "deny", reason: "not today" });
    const notices = events.filter((e) => e.type === "notice").map((e) => (e.type === "notice" ? [e.kind, e.data?.outcome] : []));
    expect(notices).toEqual([
      ["approval.requested", undefined],
      ["approval.resolved", "denied"],
    ]);
  });

  it("a request never answered is denied as soon as the run is cancelled, and a late answer is ErrApprovalExpired", async () => {
    let held: ApprovalRequest | undefined;
    const driver = scriptedDriver(async (_r, sink, signal) => {
      void sink.requestApproval({ kind: "permission", title: "Write" });
      await untilAborted(signal);
      return {};
    });
    const stream = new Agent(driver).stream("p", { timeoutMs: 30 });
    for await (const event of stream) if (event.type === "approval-request") held = event.request;
    await stream.result().catch(() => undefined);
    expect(driver.decisions).toEqual([{ outcome: "deny", reason: "run cancelled" }]);
    expect(held?.status).toBe("expired");
    let late: unknown;
    try {
      held?.approve();
    } catch (e) {
      late = e;
    }
    expect(isError(late, ErrApprovalExpired)).toBe(true);
    expect(isError(late, ErrApprovalResolved)).toBe(true);
  });

  it("a handler that throws aborts the run with that error as cause, and the CLI is still denied", async () => {
    const boom = new Error("ui crashed");
    const driver = scriptedDriver(async (_r, sink, signal) => {
      await sink.requestApproval({ kind: "permission", title: "Write" });
      await untilAborted(signal);
      return {};
    });
    const err = await new Agent(driver, {
      onApproval: () => {
        throw boom;
      },
    })
      .run("p")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdaptorError);
    expect((err as Error).cause).toBe(boom);
    expect(driver.decisions).toEqual([{ outcome: "deny", reason: "approval handler failed" }]);
  });

  it("answer() on a permission is ErrApprovalKindMismatch; a hand-made request is ErrApprovalUnavailable", () => {
    const orphan = new ApprovalRequest({ id: "x", runId: "r", kind: "permission", title: "t", createdAt: new Date(), attempt: 1 });
    expect(() => orphan.answer("yes")).toThrow(expect.objectContaining({ message: expect.stringContaining("does not fit") }));
    let err: unknown;
    try {
      orphan.approve();
    } catch (e) {
      err = e;
    }
    expect(isError(err, ErrApprovalUnavailable)).toBe(true);
    try {
      orphan.answer("x");
    } catch (e) {
      err = e;
    }
    expect(isError(err, ErrApprovalKindMismatch)).toBe(true);
  });

  describe("which answer fits which ask", () => {
    const CHOICES = [
      { key: "accept", label: "Allow once" },
      { key: "acceptForSession", label: "Allow for this session" },
    ];
    const ask = (kind: "permission" | "plan_review" | "question", choices?: typeof CHOICES) =>
      new ApprovalRequest({ id: "a1", runId: "r", kind, title: "t", choices, createdAt: new Date(), attempt: 1 });
    /** What `call` throws on a request without a responder: the rule's refusal, else ErrApprovalUnavailable (it fits). */
    const thrownBy = (call: () => void): unknown => {
      try {
        call();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const fits = (error: unknown) => isError(error, ErrApprovalUnavailable);

    it("answer() fits a permission that lists choices, with one of their keys", () => {
      expect(fits(thrownBy(() => ask("permission", CHOICES).answer("acceptForSession")))).toBe(true);
    });

    it("answer() with a key a permission does not list is InvalidOptionError (field choice) naming its keys, with a case-only match as suggestion", () => {
      const error = thrownBy(() => ask("permission", CHOICES).answer("acceptforsession"));
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({ subject: "answer()", field: "choice", suggestion: "acceptForSession" });
      expect((error as Error).message).toContain('(its choices: "accept", "acceptForSession")');
      expect(thrownBy(() => ask("permission", CHOICES).answer("approve"))).toMatchObject({ suggestion: undefined });
    });

    it("answer() on a permission without choices (or an empty list) and on a plan review is ErrApprovalKindMismatch", () => {
      for (const request of [ask("permission"), ask("permission", []), ask("plan_review"), ask("plan_review", CHOICES)])
        expect(
          isError(
            thrownBy(() => request.answer("accept")),
            ErrApprovalKindMismatch,
          ),
        ).toBe(true);
    });

    it("a question takes any answer (a key or free text); approve() does not fit it", () => {
      expect(fits(thrownBy(() => ask("question", CHOICES).answer("free text")))).toBe(true);
      expect(fits(thrownBy(() => ask("question").answer("free text")))).toBe(true);
      expect(
        isError(
          thrownBy(() => ask("question", CHOICES).approve()),
          ErrApprovalKindMismatch,
        ),
      ).toBe(true);
    });

    it("approve() and deny() fit a permission with choices as without", () => {
      expect(fits(thrownBy(() => ask("permission", CHOICES).approve()))).toBe(true);
      expect(fits(thrownBy(() => ask("permission", CHOICES).deny()))).toBe(true);
    });
  });

  it("an unlisted choice leaves a live request pending: a later listed answer reaches the driver", async () => {
    const thrown: unknown[] = [];
    const driver = scriptedDriver(async (_r, sink) => {
      const decision = await sink.requestApproval({
        kind: "permission",
        title: "shell: ls",
        choices: [
          { key: "accept", label: "Allow once" },
          { key: "cancel", label: "Cancel the turn" },
        ],
      });
      return { text: decision.outcome };
    });
    await new Agent(driver, {
      onApproval: (request) => {
        try {
          request.answer("abort");
        } catch (error) {
          thrown.push(error);
        }
        expect(request.status).toBe("pending");
        request.answer("cancel");
      },
    }).run("p");
    expect(thrown[0]).toBeInstanceOf(InvalidOptionError);
    expect(driver.decisions).toEqual([{ outcome: "answer", choice: "cancel" }]);
  });
});

describe("backpressure", () => {
  it("drops only deltas when the buffer is full and reports the gap with one dropped event", async () => {
    const driver = scriptedDriver(async (_r, sink) => {
      for (let i = 0; i < 50; i++) sink.emit({ type: "text-delta", text: String(i) });
      sink.emit({ type: "tool-result", id: "t", output: "kept", isError: false });
      return { text: "done" };
    });
    const stream = new Agent(driver, { eventBuffer: 10 }).stream("p");
    await stream.result();
    const events = await collect(stream);
    const dropped = events.find((e) => e.type === "dropped");
    expect(dropped).toMatchObject({ type: "dropped", count: 41, byType: { "text-delta": 41 } });
    expect(events.some((e) => e.type === "tool-result")).toBe(true);
    expect(events.at(-1)?.type).toBe("run-finished");
    const seqs = events.map((e) => e.meta.sequence);
    expect(seqs.every((s, i) => i === 0 || s > seqs[i - 1]!)).toBe(true);
  });
});

describe("bounded event buffer for a consumer that does not read", () => {
  it("runtime notices beyond the buffer are dropped and counted like deltas, so a flood of unknown lines holds a bounded backlog", async () => {
    const lines = 200_000;
    const driver = scriptedDriver(async (_r, sink) => {
      sink.emit({ type: "notice", kind: "lifecycle", message: "session started" });
      for (let i = 0; i < lines; i++) sink.emit({ type: "notice", kind: "runtime", message: `unhandled line type t${i}` });
      sink.emit({ type: "tool-result", id: "t", output: "kept", isError: false });
      return { text: "done" };
    });
    const stream = new Agent(driver, { eventBuffer: 100 }).stream("p");
    await stream.result(); // the consumer reads nothing until the run is over
    const events = await collect(stream);
    expect(events.length).toBeLessThan(110);
    const notices = events.filter((e) => e.type === "notice");
    expect(notices[0]).toMatchObject({ kind: "lifecycle", message: "session started" });
    const dropped = events.find((e) => e.type === "dropped");
    expect(dropped).toMatchObject({ type: "dropped", byType: { notice: lines - (notices.length - 1) } });
    expect(events.filter((e) => e.type === "tool-result")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: true });
  });

  it("a reader that yields to the event loop once per event keeps a burst of 5,000 tool calls (20,000 events that are never dropped) whole at the default eventBuffer", async () => {
    const calls = 5000;
    const driver = scriptedDriver(async (_r, sink, signal) => {
      // One burst, as a CLI writing thousands of tool lines at once: the host gets no turn of the event loop during it.
      for (let i = 0; i < calls; i++) {
        if (signal.aborted) throw signal.reason;
        sink.emit({ type: "tool-call", phase: "start", id: `t${i}`, name: "Bash", input: { command: "true" } });
        sink.emit({ type: "tool-call", phase: "end", id: `t${i}`, name: "Bash", input: { command: "true" } });
        sink.emit({ type: "tool-result", id: `t${i}`, output: "", isError: false });
        sink.emit({ type: "notice", kind: "lifecycle", message: `model response ${i}` });
      }
      return { text: "done" };
    });
    const stream = new Agent(driver).stream("p");
    const events: AgentEvent[] = [];
    for await (const e of stream) {
      events.push(e);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await expect(stream.result()).resolves.toMatchObject({ text: "done" });
    expect(events.filter((e) => e.type === "tool-result")).toHaveLength(calls);
    expect(events.some((e) => e.type === "dropped")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: true });
  });

  it("a backlog of events that are never dropped past its hard cap ends the run with RESOURCE_EXHAUSTED, holding no more than the cap", async () => {
    let emitted = 0;
    const driver = scriptedDriver(async (_r, sink, signal) => {
      for (let i = 0; i < 300_000; i++) {
        if (signal.aborted) throw signal.reason;
        sink.emit({ type: "tool-result", id: `t${i}`, output: "x", isError: false });
        emitted++;
      }
      return { text: "done" };
    });
    const stream = new Agent(driver, { eventBuffer: 100 }).stream("p");
    const error = await stream.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DriverError);
    expect(error).toMatchObject({ code: "RESOURCE_EXHAUSTED", op: "events" });
    expect((error as Error).message).toContain("65536 events");
    expect(emitted).toBe(65536); // run-started and 65,535 results are kept; the next one ends the run
    const events = await collect(stream);
    expect(events.length).toBeLessThanOrEqual(65536 + 2);
    expect(events.at(-2)).toMatchObject({ type: "dropped" });
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false, reason: "error" });
  });
});

describe("input hygiene (found by a new-user trial)", () => {
  it("a prompt that is not a string rejects through result() instead of hanging", async () => {
    const driver = scriptedDriver(async () => ({ text: "never" }));
    const stream = new Agent(driver).stream(42 as unknown as string);
    const events = await collect(stream);
    expect(await stream.result().catch((e: unknown) => e)).toMatchObject({ name: "InvalidOptionError", field: "prompt" });
    expect(events.at(-1)?.type).toBe("run-finished");
    expect(driver.requests).toHaveLength(0);
  });

  it("null options and a null approvals policy still end the stream with run-finished", async () => {
    const agent = new Agent(scriptedDriver(async () => ({ text: "ok" })));
    expect((await agent.run("p", null as never)).text).toBe("ok");
    const stream = agent.stream("p", { policy: { approvals: null as never } });
    const events = await collect(stream);
    expect(events.at(-1)?.type).toBe("run-finished");
    expect(await stream.result().catch((e: unknown) => e)).toMatchObject({ name: "InvalidPolicyError" });
  });

  it("Infinity means no deadline; NaN, negative and longer-than-a-timer timeouts are refused, never an instant deadline", async () => {
    const agent = new Agent(
      scriptedDriver(async () => {
        await new Promise((r) => setTimeout(r, 20));
        return { text: "done" };
      }),
    );
    expect((await agent.run("p", { timeoutMs: Infinity })).text).toBe("done");
    for (const timeoutMs of [2 ** 31, Number.NaN, -1]) {
      expect(await agent.run("p", { timeoutMs }).catch((e: unknown) => e)).toMatchObject({
        name: "InvalidOptionError",
        field: "timeoutMs",
      });
    }
  });

  it("a misspelt or non-object policy is InvalidPolicyError, not silently ignored", async () => {
    const agent = new Agent(scriptedDriver(async () => ({ text: "ok" })));
    const typo = await agent.run("p", { policy: { sandboxx: "read_only" } as never }).catch((e: unknown) => e);
    expect(findError(typo, InvalidDriverConfigError)).toBeUndefined();
    expect(typo).toMatchObject({ name: "InvalidPolicyError", field: "sandboxx" });
    const text = await agent.run("p", { policy: "read_only" as never }).catch((e: unknown) => e);
    expect(text).toMatchObject({ name: "InvalidPolicyError", field: "policy" });
  });

  it("an approval cannot be answered after the run was cancelled", async () => {
    const driver = scriptedDriver(async (_r, sink, signal) => {
      void sink.requestApproval({ kind: "permission", title: "Write" });
      await untilAborted(signal);
      return {};
    });
    const stream = new Agent(driver).stream("p");
    let late: unknown;
    for await (const event of stream) {
      if (event.type !== "approval-request") continue;
      stream.cancel();
      try {
        event.request.approve();
      } catch (error) {
        late = error;
      }
    }
    await stream.result().catch(() => undefined);
    expect(isError(late, ErrApprovalExpired)).toBe(true);
    expect(driver.decisions).toEqual([{ outcome: "deny", reason: "run cancelled" }]);
  });

  it("bad eventBuffer and leaseTtlMs are refused at construction", () => {
    const driver = scriptedDriver(async () => ({ text: "x" }));
    expect(() => new Agent(driver, { eventBuffer: 0 })).toThrow(InvalidOptionError);
    expect(() => new Agent(driver, { leaseTtlMs: Infinity })).toThrow(/leaseTtlMs must be a number of ms in \(0, 2147483647\]/);
  });
});
