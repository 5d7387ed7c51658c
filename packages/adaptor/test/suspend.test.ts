import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { ApprovalAsk, DriverRequest, DriverSink } from "@adaptor/driver";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { ManualClock } from "@adaptor/threadstore/testing";
import {
  Agent,
  ApprovalNotPendingError,
  ErrApprovalKindMismatch,
  ErrApprovalNotPending,
  ErrFeatureUnsupported,
  ErrSuspendUnsupported,
  ErrThreadBusy,
  FeatureUnsupportedError,
  InvalidOptionError,
  SuspendUnsupportedError,
  findError,
  isError,
  type AgentEvent,
} from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";
import { baseOnly } from "./support/base-store.js";

const WRITE: ApprovalAsk = {
  kind: "permission",
  title: "Write: notes.md",
  toolName: "Write",
  toolCallId: "call-1",
  input: { file_path: "notes.md", content: "hi\n" },
};
const BASH: ApprovalAsk = { kind: "permission", title: "Bash: ls", toolName: "Bash", toolCallId: "call-2", input: { command: "ls" } };
/** A permission whose agent takes named answers (as Codex's and ACP agents' asks do). */
const SHELL: ApprovalAsk = {
  kind: "permission",
  title: "shell: ls",
  toolName: "shell",
  toolCallId: "call-3",
  input: { command: "ls" },
  choices: [
    { key: "accept", label: "Allow once" },
    { key: "acceptForSession", label: "Allow for this session" },
  ],
};

/**
 * A driver whose turn asks for `asks` in order (each waits for its decision or the abort), "runs"
 * every approved tool by appending to `effects`, and continues the session `s1`. It declares
 * `sessions.resume` unless `resume` is false: then, like gemini-cli, a stored session cannot be
 * continued in a new process (every call is one), and the driver answers `resume_rejected`.
 */
function toolDriver(asks: readonly ApprovalAsk[], { resume = true }: { resume?: boolean } = {}) {
  const effects: string[] = [];
  const scripted = scriptedDriver(async (request: DriverRequest, sink: DriverSink, signal: AbortSignal) => {
    if (!resume && request.session)
      return { failure: { reason: "resume_rejected", message: `cannot continue session ${request.session.resumeId} in a new process` } };
    const outcomes: string[] = [];
    for (const ask of asks) {
      const decision = await Promise.race([sink.requestApproval(ask), untilAborted(signal)]);
      outcomes.push(`${ask.toolName}:${decision.outcome}${decision.outcome === "answer" ? `=${decision.choice}` : ""}`);
      if (decision.outcome === "approve") effects.push(`${ask.toolName} for ${request.prompt}`);
    }
    return { text: outcomes.join(" "), checkpoint: { resumeId: request.session?.resumeId ?? "s1", data: { turn: request.prompt } } };
  });
  const { descriptor } = scripted;
  const sessions = { resume, fork: false };
  const driver = Object.assign(scripted, { descriptor: { ...descriptor, capabilities: { ...descriptor.capabilities, sessions } } });
  return { driver, effects };
}

describe("suspended turns", () => {
  it("a turn suspends on an approval: the question is stored, the lease released, nothing committed, and the verdict is a suspended Result", async () => {
    const store = new MemoryThreadStore();
    const { driver, effects } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: store });
    const thread = agent.thread("t1");
    await thread.run("first", { onApproval: (r) => r.approve() });
    const before = await thread.checkpoint();
    const events: AgentEvent[] = [];
    const stream = thread.stream("second", { suspend: { deadlineMs: 3_600_000, onDeadline: "deny" } });
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.status).toBe("suspended");
    const pending = result.pendingApproval!;
    expect(pending).toMatchObject({
      key: "t1",
      kind: "permission",
      title: "Write: notes.md",
      toolName: "Write",
      toolCallId: "call-1",
      input: WRITE.input,
      status: "pending",
      onDeadline: "deny",
      checkpoint: { recordId: before!.id, revision: before!.revision },
    });
    // The store's clock sets the deadline: an hour after the save, which is no earlier than the suspension.
    expect(pending.deadline!.getTime() - pending.createdAt.getTime()).toBeGreaterThanOrEqual(3_600_000);
    expect(pending.deadline!.getTime() - pending.createdAt.getTime()).toBeLessThan(3_600_000 + 60_000);
    expect(events.some((e) => e.type === "approval-request")).toBe(false);
    expect(events.find((e) => e.type === "notice" && e.kind === "approval.suspended")).toBeDefined();
    // One id for the question: the run's approval notices carry the stored approval's id.
    const approvalNotices = events.filter(
      (e) => e.type === "notice" && (e.kind === "approval.requested" || e.kind === "approval.resolved"),
    );
    expect(approvalNotices.map((e) => (e.type === "notice" ? e.data?.id : undefined))).toEqual([pending.id, pending.id]);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: true, suspended: true });
    expect(effects).toEqual(["Write for first"]);
    expect(await thread.checkpoint()).toEqual(before);
    expect(await thread.pendingApprovals()).toEqual([pending]);
    // The lease is free: another owner takes it at once.
    const lease = await store.acquireLease("t1", "someone-else", 1_000);
    await store.releaseLease(lease);
  });

  it("another agent on the same store answers it: the turn runs again from its checkpoint, the stored answer is applied without asking, the checkpoint advances once", async () => {
    const store = new MemoryThreadStore();
    const a = toolDriver([WRITE]);
    const agentA = new Agent(a.driver, { threadStore: store });
    await agentA.thread("t2").run("first", { onApproval: (r) => r.approve() });
    const suspended = await agentA.thread("t2").run("second", { suspend: {} });
    await agentA.close();
    const before = (await store.resolve({ key: "t2" }))!;

    const b = toolDriver([WRITE]);
    await using agentB = new Agent(b.driver, { threadStore: store });
    const threadB = agentB.thread("t2");
    const [listed] = await threadB.pendingApprovals();
    expect(listed?.id).toBe(suspended.pendingApproval!.id);
    const asked: string[] = [];
    const stream = threadB.streamAnswer(listed!.id, { outcome: "approve" }, { onApproval: (r) => (asked.push(r.title), r.deny("no")) });
    const notices: string[] = [];
    for await (const event of stream) if (event.type === "notice") notices.push(event.kind);
    const result = await stream.result();
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Write:approve");
    expect(asked).toEqual([]);
    expect(notices).toContain("approval.replayed");
    expect(b.effects).toEqual(["Write for second"]);
    expect(b.driver.requests).toHaveLength(1);
    expect(b.driver.requests[0]!.prompt).toBe("second");
    expect(b.driver.requests[0]!.session).toMatchObject({ resumeId: "s1", data: { turn: "first" } });
    const after = (await store.resolve({ key: "t2" }))!;
    expect(after.id).toBe(before.id);
    expect(after.revision).toBe(before.revision + 1);
    expect(after.checkpoint.data).toEqual({ turn: "second" });
    expect(await threadB.pendingApprovals()).toEqual([]);
    expect((await store.getPendingApproval(listed!.id))?.status).toBe("closed");
    // Answering again: not pending any more.
    const again = await threadB.answer(listed!.id, { outcome: "approve" }).catch((e: unknown) => e);
    expect(findError(again, ApprovalNotPendingError)?.status).toBe("closed");
  });

  it("anything new in the resumed turn is asked as usual; with suspend it suspends again and the next resume applies both answers", async () => {
    const store = new MemoryThreadStore();
    const first = toolDriver([WRITE, BASH]);
    await using agent = new Agent(first.driver, { threadStore: store });
    const thread = agent.thread("t3");
    const one = await thread.run("go", { suspend: {} });
    const two = await thread.answer(one.pendingApproval!.id, { outcome: "approve" }, { suspend: {} });
    expect(two.status).toBe("suspended");
    expect(two.pendingApproval).toMatchObject({ toolName: "Bash", input: { command: "ls" } });
    expect((await store.getPendingApproval(one.pendingApproval!.id))?.status).toBe("closed");
    const asked: string[] = [];
    const done = await thread.answer(
      two.pendingApproval!.id,
      { outcome: "deny", reason: "no shell" },
      { onApproval: (r) => (asked.push(r.title), r.approve()) },
    );
    expect(done.text).toBe("Write:approve Bash:deny");
    expect(asked).toEqual([]);
    // Each resume runs the turn again from its checkpoint: the Write approved in the first resume runs again in the second.
    expect(first.effects).toEqual(["Write for go", "Write for go"]);
    expect(await thread.pendingApprovals()).toEqual([]);
  });

  it("a repeated ask with a different input is not covered by the stored answer and is asked", async () => {
    const store = new MemoryThreadStore();
    const a = toolDriver([WRITE]);
    await using agentA = new Agent(a.driver, { threadStore: store });
    const suspended = await agentA.thread("t4").run("go", { suspend: {} });
    const b = toolDriver([{ ...WRITE, input: { file_path: "other.md", content: "hi\n" } }]);
    await using agentB = new Agent(b.driver, { threadStore: store });
    const asked: unknown[] = [];
    const result = await agentB
      .thread("t4")
      .answer(suspended.pendingApproval!.id, { outcome: "approve" }, { onApproval: (r) => (asked.push(r.input), r.deny("asked")) });
    expect(asked).toEqual([{ file_path: "other.md", content: "hi\n" }]);
    expect(result.text).toBe("Write:deny");
  });

  it("a host whose checkout lives elsewhere: its asks name its own working directory and the stored answer still applies; another path under it is asked", async () => {
    const store = new MemoryThreadStore();
    const dirA = mkdtempSync(join(tmpdir(), "suspend-a-"));
    const dirB = mkdtempSync(join(tmpdir(), "suspend-b-"));
    /** Asks to write `${cwd}/<file>` (a CLI names absolute paths in its asks), as codex does. */
    const pathDriver = (file: string) =>
      scriptedDriver(async (request: DriverRequest, sink: DriverSink, signal: AbortSignal) => {
        const path = `${request.cwd}/${file}`;
        const ask: ApprovalAsk = {
          kind: "permission",
          title: `Write: ${path}`,
          toolName: "Write",
          input: { file_path: path, note: `in ${request.cwd}` },
        };
        const decision = await Promise.race([sink.requestApproval(ask), untilAborted(signal)]);
        return { text: `${decision.outcome} ${path}`, checkpoint: { resumeId: "s1" } };
      });
    try {
      const options = { threadStore: store, workspace: "git@example.com:acme/app.git" };
      await using agentA = new Agent(pathDriver("notes.md"), { ...options, cwd: dirA });
      const suspended = await agentA.thread("t-cwd").run("go", { suspend: {} });
      expect(suspended.pendingApproval?.input).toEqual({ file_path: `${dirA}/notes.md`, note: `in ${dirA}` });

      await using agentB = new Agent(pathDriver("notes.md"), { ...options, cwd: dirB });
      const asked: unknown[] = [];
      const result = await agentB
        .thread("t-cwd")
        .answer(suspended.pendingApproval!.id, { outcome: "approve" }, { onApproval: (r) => (asked.push(r.input), r.deny("asked")) });
      expect(asked).toEqual([]);
      expect(result.text).toBe(`approve ${dirB}/notes.md`);

      const again = await agentA.thread("t-cwd-2").run("go", { suspend: {} });
      await using agentC = new Agent(pathDriver("other.md"), { ...options, cwd: dirB });
      const otherAsked: unknown[] = [];
      const other = await agentC
        .thread("t-cwd-2")
        .answer(again.pendingApproval!.id, { outcome: "approve" }, { onApproval: (r) => (otherAsked.push(r.input), r.deny("asked")) });
      expect(otherAsked).toEqual([{ file_path: `${dirB}/other.md`, note: `in ${dirB}` }]);
      expect(other.text).toBe(`deny ${dirB}/other.md`);
    } finally {
      rmSync(dirA, { recursive: true, force: true });
      rmSync(dirB, { recursive: true, force: true });
    }
  });

  it("a decision that does not fit the approval's kind (an answer on a permission without choices) is refused with ErrApprovalKindMismatch and records nothing", async () => {
    const store = new MemoryThreadStore();
    const { driver } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: store });
    const suspended = await agent.thread("t-kind").run("go", { suspend: {} });
    const id = suspended.pendingApproval!.id;
    const error = await agent
      .thread("t-kind")
      .answer(id, { outcome: "answer", choice: "x" })
      .catch((e: unknown) => e);
    expect(isError(error, ErrApprovalKindMismatch)).toBe(true);
    expect((await store.getPendingApproval(id))?.status).toBe("pending");
    expect(driver.requests).toHaveLength(1);
    const approved = await agent.thread("t-kind").answer(id, { outcome: "approve" });
    expect(approved.text).toBe("Write:approve");
  });

  it("a stored permission keeps its choices: an unlisted answer is an InvalidOptionError and records nothing, a listed one reaches the driver", async () => {
    const store = new MemoryThreadStore();
    const { driver } = toolDriver([SHELL]);
    await using agent = new Agent(driver, { threadStore: store });
    const suspended = await agent.thread("t-choice").run("go", { suspend: {} });
    const id = suspended.pendingApproval!.id;
    expect(suspended.pendingApproval?.choices).toEqual(SHELL.choices);
    expect((await agent.thread("t-choice").pendingApprovals())[0]?.choices).toEqual(SHELL.choices);
    const error = await agent
      .thread("t-choice")
      .answer(id, { outcome: "answer", choice: "acceptforsession" })
      .catch((e: unknown) => e);
    expect(findError(error, InvalidOptionError)).toMatchObject({
      subject: "resume decision",
      field: "choice",
      suggestion: "acceptForSession",
    });
    expect((await store.getPendingApproval(id))?.status).toBe("pending");
    expect(driver.requests).toHaveLength(1);
    const answered = await agent.thread("t-choice").answer(id, { outcome: "answer", choice: "acceptForSession" });
    expect(answered.text).toBe("shell:answer=acceptForSession");
  });

  it("a stored edit that is not a plain object is an InvalidOptionError and records nothing; one the agent cannot run is applied as a deny", async () => {
    const store = new MemoryThreadStore();
    const { driver, effects } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: store });
    const suspended = await agent.thread("t-edit").run("go", { suspend: {} });
    const id = suspended.pendingApproval!.id;
    for (const updatedInput of [null, "x", [1]]) {
      const error = await agent
        .thread("t-edit")
        .answer(id, { outcome: "approve", updatedInput })
        .catch((e: unknown) => e);
      expect(findError(error, InvalidOptionError)).toMatchObject({ subject: "resume decision", field: "updatedInput" });
    }
    expect((await store.getPendingApproval(id))?.status).toBe("pending");
    // WRITE is not inputEditable: the stored edit must not run the original input.
    const edited = await agent.thread("t-edit").answer(id, { outcome: "approve", updatedInput: { file_path: "other.md", content: "x" } });
    expect(edited.text).toBe("Write:deny");
    expect(effects).toEqual([]);
  });

  it("a suspended approval's deadline is judged by the store's clock, not the suspending host's: a store an hour behind keeps it an hour after its own now", async () => {
    const hour = 3_600_000;
    const storeNow = new Date(Date.now() - hour);
    const clock = new ManualClock(storeNow);
    const store = new MemoryThreadStore({ now: clock.now });
    const { driver } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: store, leaseTtlMs: 3_600_000 });
    const stream = agent.thread("skew").stream("go", { suspend: { deadlineMs: 60_000, onDeadline: "deny" } });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const { pendingApproval } = await stream.result();
    expect(pendingApproval?.deadline?.toISOString()).toBe(new Date(storeNow.getTime() + 60_000).toISOString());
    const notice = events.find((e) => e.type === "notice" && e.kind === "approval.suspended");
    expect(notice?.type === "notice" ? notice.data?.deadline : undefined).toBe(pendingApproval?.deadline?.toISOString());
    // Fifty-nine seconds on the store's clock: still answerable, though the host's clock is an hour past it.
    clock.advance(59_000);
    expect((await agent.thread("skew").pendingApprovals()).map((a) => a.status)).toEqual(["pending"]);
    clock.advance(2_000);
    expect((await agent.thread("skew").pendingApprovals()).map((a) => a.status)).toEqual(["expired"]);
  });

  it("past its deadline the fallback is recorded once at the next access: deny lets resume() continue with a denial, abort closes it", async () => {
    const clock = new ManualClock(new Date()); // the store judges deadlines by its own clock
    const store = new MemoryThreadStore({ now: clock.now });
    const { driver, effects } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: store, leaseTtlMs: 3_600_000 });
    const deny = await agent.thread("d1").run("go", { suspend: { deadlineMs: 1_000, onDeadline: "deny" } });
    const abort = await agent.thread("d2").run("go", { suspend: { deadlineMs: 1_000 } });
    clock.advance(120_000); // the deadlines pass while nobody looks
    const [expired] = await agent.thread("d1").pendingApprovals();
    expect(expired).toMatchObject({ id: deny.pendingApproval!.id, status: "expired", decision: { outcome: "deny" } });
    const late = await agent
      .thread("d1")
      .answer(expired!.id, { outcome: "approve" })
      .catch((e: unknown) => e);
    expect(isError(late, ErrApprovalNotPending)).toBe(true);
    expect(findError(late, ApprovalNotPendingError)?.status).toBe("expired");
    const resumed = await agent.thread("d1").resume(expired!.id);
    expect(resumed.text).toBe("Write:deny");
    expect(effects).toEqual([]);
    const aborted = await agent
      .thread("d2")
      .resume(abort.pendingApproval!.id)
      .catch((e: unknown) => e);
    expect(findError(aborted, ApprovalNotPendingError)?.status).toBe("expired");
    expect((await store.getPendingApproval(abort.pendingApproval!.id))?.status).toBe("closed");
    expect(driver.requests).toHaveLength(3);
  });

  it("streamResume streams the resumed turn of an approval answered already (its turn not run) and resolves its verdict", async () => {
    const store = new MemoryThreadStore();
    const { driver, effects } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: store });
    const suspended = await agent.thread("r1").run("go", { suspend: {} });
    const id = suspended.pendingApproval!.id;
    // Answered in the store, but the host that answered stopped before running the turn.
    await store.answerPendingApproval(id, { outcome: "approve" });
    const stream = agent.thread("r1").streamResume(id);
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const result = await stream.result();
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Write:approve");
    expect(effects).toEqual(["Write for go"]);
    expect(types[0]).toBe("run-started");
    expect(types.at(-1)).toBe("run-finished");
    // The turn committed and closed the approval: it is not resumed twice.
    const again = await agent
      .thread("r1")
      .resume(id)
      .catch((e: unknown) => e);
    expect(findError(again, ApprovalNotPendingError)?.status).toBe("closed");
  });

  it("an approval whose thread moved on cannot continue: answering it closes it", async () => {
    const store = new MemoryThreadStore();
    const { driver } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: store });
    const thread = agent.thread("m1");
    const suspended = await thread.run("go", { suspend: {} });
    await thread.run("another turn", { onApproval: (r) => r.approve() });
    const error = await thread.answer(suspended.pendingApproval!.id, { outcome: "approve" }).catch((e: unknown) => e);
    expect(findError(error, ApprovalNotPendingError)?.status).toBe("closed");
    expect(await thread.pendingApprovals()).toEqual([]);
  });

  it("answering while another host runs a turn on the key fails with ErrThreadBusy and records nothing", async () => {
    const store = new MemoryThreadStore();
    const { driver } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: store });
    const suspended = await agent.thread("b1").run("go", { suspend: {} });
    const lease = await store.acquireLease("b1", "another-host", 60_000);
    const busy = await agent
      .thread("b1")
      .answer(suspended.pendingApproval!.id, { outcome: "approve" })
      .catch((e: unknown) => e);
    expect(isError(busy, ErrThreadBusy)).toBe(true);
    expect((await store.getPendingApproval(suspended.pendingApproval!.id))?.status).toBe("pending");
    await store.releaseLease(lease);
    expect((await agent.thread("b1").answer(suspended.pendingApproval!.id, { outcome: "approve" })).status).toBe("completed");
  });

  it("two hosts answering at once: one answer is recorded and its turn runs, the other gets ApprovalNotPendingError or ErrThreadBusy", async () => {
    const store = new MemoryThreadStore();
    const a = toolDriver([WRITE]);
    await using agentA = new Agent(a.driver, { threadStore: store });
    const suspended = await agentA.thread("r1").run("go", { suspend: {} });
    const b = toolDriver([WRITE]);
    const c = toolDriver([WRITE]);
    await using agentB = new Agent(b.driver, { threadStore: store });
    await using agentC = new Agent(c.driver, { threadStore: store });
    const id = suspended.pendingApproval!.id;
    const outcomes = await Promise.allSettled([
      agentB.thread("r1").answer(id, { outcome: "approve" }),
      agentC.thread("r1").answer(id, { outcome: "deny", reason: "no" }),
    ]);
    const won = outcomes.filter((o) => o.status === "fulfilled");
    expect(won).toHaveLength(1);
    const lost = (outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult).reason;
    expect(isError(lost, ErrApprovalNotPending) || isError(lost, ErrThreadBusy)).toBe(true);
    expect([...b.effects, ...c.effects].length).toBeLessThanOrEqual(1);
    expect((await store.resolve({ key: "r1" }))?.revision).toBe(1);
  });

  it("a suspended turn ends its run span (verdict ok) like a completed one", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const { driver } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: new MemoryThreadStore(), telemetry: { tracer: provider.getTracer("adaptor") } });
    const result = await agent.thread("s1").run("go", { suspend: {} });
    expect(result.status).toBe("suspended");
    const runs = exporter.getFinishedSpans().filter((s) => s.name === "adaptor.run");
    expect(runs.map((s) => s.attributes["adaptor.verdict"])).toEqual(["ok"]);
  });

  it("resuming a turn that continues the stored conversation on a driver without sessions.resume: FeatureUnsupportedError (feature resume) before the lease, the approval untouched, the driver never called", async () => {
    const store = new MemoryThreadStore();
    const a = toolDriver([WRITE]);
    const agentA = new Agent(a.driver, { threadStore: store });
    await agentA.thread("r1").run("first", { onApproval: (r) => r.approve() });
    const suspended = await agentA.thread("r1").run("second", { suspend: {} });
    await agentA.close();
    const before = await store.resolve({ key: "r1" });

    const b = toolDriver([WRITE], { resume: false });
    await using agentB = new Agent(b.driver, { threadStore: store });
    const acquire = vi.spyOn(store, "acquireLease");
    const stream = agentB.thread("r1").streamAnswer(suspended.pendingApproval!.id, { outcome: "approve" });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const refused = await stream.result().catch((e: unknown) => e);
    expect(isError(refused, ErrFeatureUnsupported)).toBe(true);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "resume" });
    expect(b.driver.requests).toEqual([]);
    expect(acquire).not.toHaveBeenCalled();
    expect(events.some((e) => e.type === "notice" && e.kind === "lifecycle")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false });
    // Nothing recorded: the approval is still pending, the record as it was.
    expect(await agentB.thread("r1").pendingApprovals()).toEqual([suspended.pendingApproval]);
    expect(await store.resolve({ key: "r1" })).toEqual(before);
  });

  it("with suspend, a turn that continues the stored conversation on a driver without sessions.resume is refused (feature suspend) before the driver starts: nothing stored, the lease released", async () => {
    const store = new MemoryThreadStore();
    const { driver, effects } = toolDriver([WRITE], { resume: false });
    await using agent = new Agent(driver, { threadStore: store });
    await agent.thread("r2").run("first", { onApproval: (r) => r.approve() });
    const before = await store.resolve({ key: "r2" });
    const refused = await agent
      .thread("r2")
      .run("second", { suspend: {} })
      .catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "suspend" });
    expect(driver.requests.map((r) => r.prompt)).toEqual(["first"]);
    expect(effects).toEqual(["Write for first"]);
    expect(await agent.thread("r2").pendingApprovals()).toEqual([]);
    expect(await store.resolve({ key: "r2" })).toEqual(before);
    const lease = await store.acquireLease("r2", "someone-else", 1_000);
    await store.releaseLease(lease);
  });

  it("on a driver without sessions.resume a thread's first turn (no history to lose) still suspends and resumes", async () => {
    const store = new MemoryThreadStore();
    const a = toolDriver([WRITE], { resume: false });
    const agentA = new Agent(a.driver, { threadStore: store });
    const suspended = await agentA.thread("r3").run("first", { suspend: {} });
    await agentA.close();
    expect(suspended.status).toBe("suspended");
    const b = toolDriver([WRITE], { resume: false });
    await using agentB = new Agent(b.driver, { threadStore: store });
    const result = await agentB.thread("r3").answer(suspended.pendingApproval!.id, { outcome: "approve" });
    expect(result.text).toBe("Write:approve");
    expect(b.effects).toEqual(["Write for first"]);
    expect(b.driver.requests[0]?.session).toBeUndefined();
  });

  it("a store without the capability refuses suspension with SuspendUnsupportedError before the driver starts", async () => {
    const { driver } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: baseOnly(new MemoryThreadStore()) });
    const error = await agent
      .thread("u1")
      .run("go", { suspend: {} })
      .catch((e: unknown) => e);
    expect(isError(error, ErrSuspendUnsupported)).toBe(true);
    expect(findError(error, SuspendUnsupportedError)?.reason).toBe("store");
    expect(driver.requests).toHaveLength(0);
    await expect(agent.thread("u1").pendingApprovals()).rejects.toBeInstanceOf(SuspendUnsupportedError);
  });

  it("a turn with approvals.elicitation ask refuses suspension with SuspendUnsupportedError (reason elicitation) before the driver starts", async () => {
    const { driver } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: new MemoryThreadStore() });
    const error = await agent
      .thread("e1")
      .run("go", { suspend: {}, policy: { approvals: { elicitation: "ask" } } })
      .catch((e: unknown) => e);
    expect(findError(error, SuspendUnsupportedError)?.reason).toBe("elicitation");
    expect(driver.requests).toHaveLength(0);
  });

  it("suspend outside a thread, or with a bad value, is an InvalidOptionError before anything starts", async () => {
    const { driver } = toolDriver([WRITE]);
    await using agent = new Agent(driver, { threadStore: new MemoryThreadStore() });
    expect(findError(await agent.run("go", { suspend: {} }).catch((e: unknown) => e), InvalidOptionError)?.field).toBe("suspend");
    const bad = await agent
      .thread("x")
      .run("go", { suspend: { onDeadline: "later" } as never })
      .catch((e: unknown) => e);
    expect(findError(bad, InvalidOptionError)?.field).toBe("suspend.onDeadline");
    expect(driver.requests).toHaveLength(0);
  });
});
