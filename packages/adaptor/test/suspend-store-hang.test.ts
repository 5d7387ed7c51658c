import { describe, expect, it } from "vitest";
import { DriverError } from "@adaptor/errors";
import type { ApprovalAsk, DriverRequest, DriverSink } from "@adaptor/driver";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, type AgentEvent } from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";
import { faultyStore, freeForAnotherHost, hang, verdict } from "./support/faulty-store.js";

// The store calls of a turn that suspends or resumes (docs/suspend.md) never wait past the run's
// end: a pending-approvals call of a custom store that never answers (a stuck database
// connection) ends with the run's signal or `timeoutMs`, and the key's lease is given back.

const WRITE: ApprovalAsk = {
  kind: "permission",
  title: "Write: notes.md",
  toolName: "Write",
  toolCallId: "call-1",
  input: { file_path: "notes.md", content: "hi\n" },
};

/** A driver whose turn asks for WRITE (waiting for its decision or the abort) and continues session `s1`; it can resume a session in a new process. */
function writeDriver() {
  const scripted = scriptedDriver(async (request: DriverRequest, sink: DriverSink, signal: AbortSignal) => {
    const decision = await Promise.race([sink.requestApproval(WRITE), untilAborted(signal)]);
    return { text: `Write:${decision.outcome}`, checkpoint: { resumeId: request.session?.resumeId ?? "s1" } };
  });
  const { descriptor } = scripted;
  const sessions = { resume: true, fork: false };
  return Object.assign(scripted, { descriptor: { ...descriptor, capabilities: { ...descriptor.capabilities, sessions } } });
}

/** A store holding thread `k` whose second turn suspended on WRITE; its approval's id. */
async function suspended(): Promise<{ inner: MemoryThreadStore; id: string }> {
  const inner = new MemoryThreadStore();
  const agent = new Agent(writeDriver(), { threadStore: inner, owner: "h" });
  await agent.thread("k").run("first", { onApproval: (r) => r.approve() });
  const result = await agent.thread("k").run("second", { suspend: {} });
  await agent.close();
  return { inner, id: result.pendingApproval!.id };
}

describe("a pending-approvals store call that never answers ends with the run", () => {
  it.each(["getPendingApproval", "answerPendingApproval"] as const)(
    "thread.answer whose %s hangs: timeoutMs rejects with DriverError TIMEOUT naming it, and the lease is released",
    async (method) => {
      const { inner, id } = await suspended();
      const agent = new Agent(writeDriver(), { threadStore: faultyStore(inner, method, hang), owner: "h" });
      const err = await verdict(agent.thread("k").answer(id, { outcome: "approve" }, { timeoutMs: 1_000 }));
      expect(err).toBeInstanceOf(DriverError);
      expect(err).toMatchObject({ code: "TIMEOUT", op: `threadStore.${method}`, device: "thread store" });
      expect(await freeForAnotherHost(inner, "k")).toBe(true);
    },
  );

  it("thread.resume whose getPendingApproval hangs: the run's signal aborting rejects with the abort reason", async () => {
    const { inner, id } = await suspended();
    await inner.answerPendingApproval(id, { outcome: "approve" });
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const store = faultyStore(inner, "getPendingApproval", () => {
      controller.abort(reason);
      return hang();
    });
    const agent = new Agent(writeDriver(), { threadStore: store, owner: "h" });
    expect(await verdict(agent.thread("k").resume(id, { signal: controller.signal }))).toBe(reason);
    expect(await freeForAnotherHost(inner, "k")).toBe(true);
  });

  it("closing the resumed approval after the commit hangs: the run still ends once its signal aborts, completed (the turn was committed), with a notice", async () => {
    const { inner, id } = await suspended();
    const before = (await inner.resolve({ key: "k" }))!;
    const controller = new AbortController();
    const store = faultyStore(inner, "closePendingApproval", () => {
      controller.abort(new Error("caller gave up"));
      return hang();
    });
    const agent = new Agent(writeDriver(), { threadStore: store, owner: "h" });
    const stream = agent.thread("k").streamAnswer(id, { outcome: "approve" }, { signal: controller.signal });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Write:approve");
    expect((await inner.resolve({ key: "k" }))!.revision).toBe(before.revision + 1);
    const notice = events.find((e) => e.type === "notice" && e.message?.includes("closing it after the commit failed"));
    expect(notice).toMatchObject({ data: { id, error: "caller gave up" } });
    expect(await freeForAnotherHost(inner, "k")).toBe(true);
  });

  it("storing the question of a suspending turn hangs: timeoutMs rejects with DriverError TIMEOUT naming threadStore.savePendingApproval, the ask is answered (no driver left waiting), and the lease is released", async () => {
    const inner = new MemoryThreadStore();
    // The turn waits for its approval's answer as a CLI does, whatever the run's signal.
    const driver = scriptedDriver(async (_request, sink) => {
      const decision = await sink.requestApproval(WRITE);
      return { text: `Write:${decision.outcome}`, checkpoint: { resumeId: "s1" } };
    });
    const agent = new Agent(driver, { threadStore: faultyStore(inner, "savePendingApproval", hang), owner: "h" });
    const stream = agent.thread("k").stream("go", { suspend: {}, timeoutMs: 1_000 });
    const notices: string[] = [];
    for await (const event of stream) if (event.type === "notice") notices.push(event.message ?? "");
    const err = await verdict(stream.result());
    expect(err).toBeInstanceOf(DriverError);
    expect(err).toMatchObject({ code: "TIMEOUT", op: "threadStore.savePendingApproval", device: "thread store" });
    // The driver got its answer (a deny: the turn could not suspend), rather than being left behind.
    expect(driver.decisions).toEqual([{ outcome: "deny", reason: "the turn is suspended until this approval is answered" }]);
    expect(notices).not.toContain("driver did not stop");
    expect(await freeForAnotherHost(inner, "k")).toBe(true);
  });
});

describe("a turn whose run ended while its suspension was being saved", () => {
  it("the saved question's close is not waited for: a close that never answers leaves the run's verdict (the abort) and the lease free", async () => {
    const inner = new MemoryThreadStore();
    const first = new Agent(writeDriver(), { threadStore: inner, owner: "h" });
    await first.thread("k").run("first", { onApproval: (r) => r.approve() });
    await first.close();
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const saving = faultyStore(inner, "savePendingApproval", (saved) => {
      controller.abort(reason);
      return saved;
    });
    const store = faultyStore(saving, "closePendingApproval", hang);
    const agent = new Agent(writeDriver(), { threadStore: store, owner: "h" });
    expect(await verdict(agent.thread("k").run("second", { suspend: {}, signal: controller.signal }))).toBe(reason);
    expect(saving.calls).toBe(1);
    expect(store.calls).toBe(1);
    expect(await freeForAnotherHost(inner, "k")).toBe(true);
    await agent.close();
  });
});
