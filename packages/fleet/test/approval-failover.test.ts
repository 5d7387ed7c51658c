import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { Agent } from "adaptor";
import { ApprovalNotPendingError } from "@adaptor/threadstore";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet, FleetAttemptsExhaustedError, type FleetEvent, type RecordedAgentEvent, type RunHandle } from "@adaptor/fleet";
import { fakeCliStoreView, fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { processesWith, startWorker, until } from "./support/processes.js";

// Approvals of thread turns whose worker process is SIGKILLed: an answer given before the kill is
// applied by the retried attempt to the same request instead of asking again; a question left
// unanswered is closed and asked again, or (onLostApproval "suspend") ends the turn suspended, to
// be answered later from any host through the thread store.
if (!PG_URL) {
  skipWithoutServer("fleet approvals across a retry");
} else {
  const url = PG_URL;
  const children = new Set<ChildProcess>();
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    for (const close of closers.reverse()) await close();
  });

  async function setup(prefix: string, flags: string[] = []) {
    const schema = freshSchema(prefix);
    const marker = `FLEET_APPROVAL_${schema}`;
    const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
    await store.migrate();
    const front = new Fleet({ connectionString: url, schema });
    await front.start();
    const db = new pg.Pool({ connectionString: url, max: 2 });
    closers.push(async () => {
      await front.close();
      await store.close();
      await db.end();
    });
    const worker = async (name: string): Promise<ChildProcess> => {
      const child = await startWorker(url, schema, name, ["3", ...flags]);
      children.add(child);
      return child;
    };
    const kill = async (child: ChildProcess): Promise<void> => {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    };
    const approvals = async (runId: string) =>
      (
        await db.query<{
          id: string;
          attempt: number;
          decision: { outcome: string } | null;
          closed: boolean;
          replayed_from: string | null;
        }>(
          `SELECT id, attempt, decision, closed_at IS NOT NULL AS closed, replayed_from FROM "${schema}".adaptor_fleet_approvals WHERE run_id = $1 ORDER BY attempt`,
          [runId],
        )
      ).rows;
    return { schema, marker, store, front, worker, kill, approvals };
  }

  /** Reads the handle's events live until `match` is seen; returns it. */
  async function waitFor(handle: RunHandle, match: (e: FleetEvent) => boolean): Promise<FleetEvent> {
    for await (const e of handle.events()) if (match(e)) return e;
    throw new Error("the run ended before the awaited event");
  }

  const isEcho = (e: FleetEvent): boolean =>
    e.event.type === "process" && typeof e.event.text === "string" && e.event.text.includes('"echo"');
  const isAsk = (attempt: number) => (e: FleetEvent) => e.event.type === "approval-request" && e.attempt === attempt;
  const requestId = (e: FleetEvent): string => ((e.event as RecordedAgentEvent).request as { id: string }).id;
  const isResolved = (id: string) => (e: FleetEvent) =>
    e.event.type === "notice" &&
    (e.event as RecordedAgentEvent).kind === "approval.resolved" &&
    ((e.event as RecordedAgentEvent).data as { id?: string } | undefined)?.id === id;
  /** The ids of the questions the stream asked that no `approval.resolved` of it closes. */
  const unclosed = (events: readonly FleetEvent[]): string[] =>
    events
      .filter((e) => e.event.type === "approval-request")
      .map(requestId)
      .filter((id) => events.filter(isResolved(id)).length !== 1);

  describe("fleet approvals when the worker dies", () => {
    it("answered on attempt 1, worker SIGKILLed before the turn finished: attempt 2 applies the recorded answer to the same request, asking nobody", async () => {
      const t = await setup("appr_replay");
      const first = await t.worker("first");
      const runOptions = {
        env: { ...fakeRun(fakeCodexSteps("done with the replayed answer", { ask: "npm test", sleepMs: 8000 })).env, [t.marker]: "1" },
      };
      const handle = await t.front.submit("run the tests", { threadKey: "replay", runOptions });
      const asked = await waitFor(handle, isAsk(1));
      await t.front.answer(requestId(asked), { outcome: "approve" });
      // The worker delivered the answer to the CLI (it echoes it), then dies mid-turn.
      await waitFor(handle, (e) => e.attempt === 1 && isEcho(e));
      await t.kill(first);
      await t.worker("second");
      // Attempt 2 must not wait for a person: it settles without any approval pending.
      let askedAgain = false;
      await until(async () => {
        askedAgain ||= (await handle.pendingApprovals()).length > 0;
        return askedAgain || (await handle.verdict().then(() => true));
      }, "a verdict or a second question");
      expect(askedAgain).toBe(false);
      expect((await handle.result()).text).toBe("done with the replayed answer");
      const events: FleetEvent[] = [];
      for await (const e of handle.events()) events.push(e);
      // Clients saw one question: attempt 2's repeat of it reached the stream as the recorded
      // answer applied (an `approval.replayed` notice naming the answered approval), not as a new ask.
      const asks = events.filter((e) => e.event.type === "approval-request");
      expect(asks.map((e) => e.attempt)).toEqual([1]);
      const id1 = requestId(asks[0]!);
      const replays = events.filter((e) => e.event.type === "notice" && (e.event as RecordedAgentEvent).kind === "approval.replayed");
      expect(replays.map((e) => e.attempt)).toEqual([2]);
      const replay = (replays[0]!.event as RecordedAgentEvent).data as Record<string, unknown>;
      const request1 = (asks[0]!.event as RecordedAgentEvent).request as { kind: string; toolName: string };
      expect(replay).toMatchObject({ kind: request1.kind, toolName: request1.toolName, outcome: "approve", replayedFrom: id1 });
      const id2 = replay.id as string;
      expect(id2).not.toBe(id1);
      const resolved = events.filter(
        (e) =>
          e.event.type === "notice" &&
          (e.event as RecordedAgentEvent).kind === "approval.resolved" &&
          ((e.event as RecordedAgentEvent).data as { id: string }).id === id2,
      );
      expect(resolved.map((e) => (e.event as RecordedAgentEvent).data)).toEqual([
        expect.objectContaining({ outcome: "approved", replayed: true, replayedFrom: id1 }),
      ]);
      // The CLI got the same answer both times.
      const echoes = events.filter(isEcho);
      expect(echoes.map((e) => e.attempt)).toEqual([1, 2]);
      const text = (e: FleetEvent): unknown => (e.event as RecordedAgentEvent).text;
      expect(text(echoes[1]!)).toBe(text(echoes[0]!));
      expect(text(echoes[0]!)).toContain("accept");
      // Stored: the person's answer once, and attempt 2's request decided by it (not answerable).
      expect(await t.approvals(handle.id)).toEqual([
        { id: id1, attempt: 1, decision: { outcome: "approve" }, closed: false, replayed_from: null },
        { id: id2, attempt: 2, decision: { outcome: "approve" }, closed: false, replayed_from: id1 },
      ]);
      expect(await t.front.answer(id2, { outcome: "deny", reason: "late" }).catch((e: unknown) => e)).toMatchObject({ status: "answered" });
      expect(processesWith(t.marker)).toEqual([]);
    });

    it("answered while its worker was stopped, then the worker SIGKILLed: the run's stream closes the first question with its recorded answer (approval.resolved, approved) and the retry replays it", async () => {
      const t = await setup("appr_stopped");
      const first = await t.worker("first");
      const runOptions = {
        env: { ...fakeRun(fakeCodexSteps("done with the replayed answer", { ask: "npm test", sleepMs: 8000 })).env, [t.marker]: "1" },
      };
      const handle = await t.front.submit("run the tests", { threadKey: "stopped", runOptions });
      const asked = await waitFor(handle, isAsk(1));
      const id1 = requestId(asked);
      // The worker never learns of the answer: it is stopped when the answer is recorded, then killed.
      first.kill("SIGSTOP");
      await t.front.answer(id1, { outcome: "approve" });
      await t.kill(first);
      await t.worker("second");
      expect((await handle.result()).text).toBe("done with the replayed answer");
      const events: FleetEvent[] = [];
      for await (const e of handle.events()) events.push(e);
      expect(unclosed(events)).toEqual([]);
      expect(events.filter(isResolved(id1)).map((e) => [e.attempt, (e.event as RecordedAgentEvent).data])).toEqual([
        [2, expect.objectContaining({ id: id1, outcome: "approved", attempt: 1 })],
      ]);
      const replays = events.filter((e) => e.event.type === "notice" && (e.event as RecordedAgentEvent).kind === "approval.replayed");
      expect(replays.map((e) => (e.event as RecordedAgentEvent).data)).toEqual([expect.objectContaining({ replayedFrom: id1 })]);
      expect(processesWith(t.marker)).toEqual([]);
    });

    it('unanswered when its worker was SIGKILLed (default "ask-again"): the lost question is closed, attempt 2 asks again and its answer is applied', async () => {
      const t = await setup("appr_again");
      const first = await t.worker("first");
      const runOptions = { env: { ...fakeRun(fakeCodexSteps("asked twice", { ask: "rm -rf build" })).env, [t.marker]: "1" } };
      const handle = await t.front.submit("clean", { threadKey: "again", runOptions });
      const lost = requestId(await waitFor(handle, isAsk(1)));
      await t.kill(first);
      await t.worker("second");
      const asked = requestId(await waitFor(handle, isAsk(2)));
      expect(asked).not.toBe(lost);
      const late = await t.front.answer(lost, { outcome: "approve" }).catch((e: unknown) => e);
      expect(late).toBeInstanceOf(ApprovalNotPendingError);
      expect(late).toMatchObject({ status: "closed" });
      expect((await handle.pendingApprovals()).map((a) => a.id)).toEqual([asked]);
      await t.front.answer(asked, { outcome: "deny", reason: "keep the build" });
      expect((await handle.result()).text).toBe("asked twice");
      expect((await t.approvals(handle.id)).map((a) => [a.attempt, a.decision?.outcome ?? null, a.closed])).toEqual([
        [1, null, true],
        [2, "deny", false],
      ]);
    });

    it("a question left unanswered by a SIGKILLed worker closes in the run's stream (approval.resolved, outcome expired) before the retried attempt starts: every question asked is closed once", async () => {
      const t = await setup("appr_closes");
      const first = await t.worker("first");
      const runOptions = { env: { ...fakeRun(fakeCodexSteps("closed then asked again", { ask: "rm -rf dist" })).env, [t.marker]: "1" } };
      const handle = await t.front.submit("clean", { threadKey: "closes", runOptions });
      const lost = requestId(await waitFor(handle, isAsk(1)));
      await t.kill(first);
      await t.worker("second");
      await t.front.answer(requestId(await waitFor(handle, isAsk(2))), { outcome: "approve" });
      expect((await handle.result()).text).toBe("closed then asked again");
      const events: FleetEvent[] = [];
      for await (const e of handle.events()) events.push(e);
      const closing = events.filter(isResolved(lost));
      expect(closing.map((e) => (e.event as RecordedAgentEvent).data)).toEqual([expect.objectContaining({ id: lost, outcome: "expired" })]);
      const retried = events.find((e) => e.event.type === "attempt-started" && e.attempt === 2)!;
      expect(closing[0]!.sequence).toBeLessThan(retried.sequence);
      expect(unclosed(events)).toEqual([]);
    });

    it("a question left unanswered by a SIGKILLed worker of a run that is not retried closes in the run's stream before its verdict (attempts exhausted)", async () => {
      const t = await setup("appr_exhausted");
      const first = await t.worker("first");
      const runOptions = { env: { ...fakeRun(fakeCodexSteps("never", { ask: "make install" })).env, [t.marker]: "1" } };
      const handle = await t.front.submit("install", { runOptions });
      const lost = requestId(await waitFor(handle, isAsk(1)));
      await t.kill(first);
      await t.worker("second");
      await expect(handle.result()).rejects.toBeInstanceOf(FleetAttemptsExhaustedError);
      const events: FleetEvent[] = [];
      for await (const e of handle.events()) events.push(e);
      const closing = events.filter(isResolved(lost));
      expect(closing.map((e) => (e.event as RecordedAgentEvent).data)).toEqual([expect.objectContaining({ id: lost, outcome: "expired" })]);
      expect(closing[0]!.sequence).toBeLessThan(events.at(-1)!.sequence);
      expect(events.at(-1)!.event.type).toBe("verdict");
      expect(unclosed(events)).toEqual([]);
    });

    it('unanswered when its worker was SIGKILLed, with onLostApproval "suspend": attempt 2 ends the turn suspended, and another host answers it through the thread store', async () => {
      const t = await setup("appr_suspend", ["suspend"]);
      const first = await t.worker("first");
      const env = { ...fakeRun(fakeCodexSteps("answered after the suspension", { ask: "npm publish" })).env, [t.marker]: "1" };
      const handle = await t.front.submit("publish", { threadKey: "suspended", runOptions: { env } });
      const lost = requestId(await waitFor(handle, isAsk(1)));
      await t.kill(first);
      await t.worker("second");
      const result = await handle.result();
      expect(result.status).toBe("suspended");
      expect(result.pendingApproval).toMatchObject({ key: "suspended", toolName: "shell", status: "pending" });
      expect(await t.front.answer(lost, { outcome: "approve" }).catch((e: unknown) => e)).toMatchObject({ status: "closed" });
      const events: FleetEvent[] = [];
      for await (const e of handle.events()) events.push(e);
      expect(events.filter((e) => e.event.type === "approval-request").map((e) => e.attempt)).toEqual([1]);
      expect(events.find((e) => e.event.type === "run-finished")).toMatchObject({ attempt: 2, event: { ok: true, suspended: true } });
      // Any host sharing the thread store lists and answers it; the turn completes there.
      {
        await using agent = new Agent(fakeCodex("unused"), { threadStore: fakeCliStoreView(t.store) });
        const thread = agent.thread("suspended");
        expect((await thread.pendingApprovals()).map((a) => a.id)).toEqual([result.pendingApproval!.id]);
        const done = await thread.answer(result.pendingApproval!.id, { outcome: "approve" }, { env });
        expect(done.status).toBe("completed");
        expect(done.text).toBe("answered after the suspension");
      }
      expect((await t.store.resolve({ key: "suspended" }))?.revision).toBe(1);
      await until(() => processesWith(t.marker).length === 0, "no fake CLI left");
    });

    it('with "suspend", a lost attempt that had one question answered and the next pending: attempt 2 applies the answer and suspends on the unanswered one only', async () => {
      const t = await setup("appr_both", ["suspend"]);
      const first = await t.worker("first");
      // The fake asks "npm test", then (after the answer) "npm publish", then writes its text.
      const steps = fakeCodexSteps("both answered", { ask: "npm test" });
      const asking = steps.findIndex((step) => "write" in step && step.write.includes("requestApproval"));
      const second = JSON.parse((steps[asking] as { write: string }).write) as { id: number; params: Record<string, unknown> };
      const publish = { ...second, id: 10, params: { ...second.params, itemId: "c10", command: "npm publish" } };
      steps.splice(asking + 2, 0, { write: `${JSON.stringify(publish)}\n` }, { echoStdinLine: true });
      const env = { ...fakeRun(steps).env, [t.marker]: "1" };
      const handle = await t.front.submit("test, then publish", { threadKey: "both", runOptions: { env } });
      await t.front.answer(requestId(await waitFor(handle, isAsk(1))), { outcome: "approve" });
      const pendingAtDeath = await waitFor(handle, (e) => isAsk(1)(e) && JSON.stringify(e.event).includes("npm publish"));
      await t.kill(first);
      await t.worker("second");
      const result = await handle.result();
      expect(result.status).toBe("suspended");
      expect(JSON.stringify(result.pendingApproval?.input)).toContain("npm publish");
      expect(await t.front.answer(requestId(pendingAtDeath), { outcome: "approve" }).catch((e: unknown) => e)).toMatchObject({
        status: "closed",
      });
      // Attempt 2 asked nobody through the fleet: its first suspension (on "npm test") was answered
      // with the recorded answer and the turn went on to the unanswered question.
      const events: FleetEvent[] = [];
      for await (const e of handle.events()) events.push(e);
      expect(events.filter((e) => e.event.type === "approval-request").map((e) => e.attempt)).toEqual([1, 1]);
      const notices = events
        .filter((e) => e.attempt === 2 && e.event.type === "notice")
        .map((e) => (e.event as RecordedAgentEvent).kind as string)
        .filter((kind) => kind === "approval.suspended" || kind === "approval.replayed");
      expect(notices).toEqual(["approval.suspended", "approval.replayed", "approval.suspended"]);
      {
        await using agent = new Agent(fakeCodex("unused"), { threadStore: fakeCliStoreView(t.store) });
        const thread = agent.thread("both");
        expect((await thread.pendingApprovals()).map((a) => a.id)).toContain(result.pendingApproval!.id);
        const done = await thread.answer(result.pendingApproval!.id, { outcome: "approve" }, { env });
        expect(done.text).toBe("both answered");
      }
      await until(() => processesWith(t.marker).length === 0, "no fake CLI left");
    });

    it("a resume run whose worker is SIGKILLed after the answer was recorded: attempt 2 resumes the turn with that answer instead of answering again", async () => {
      const t = await setup("appr_resume");
      const first = await t.worker("first");
      const env = { ...fakeRun(fakeCodexSteps("resumed after the kill", { ask: "npm publish", sleepMs: 8000 })).env, [t.marker]: "1" };
      const runOptions = { suspend: {}, env };
      const suspended = await (await t.front.submit("publish", { threadKey: "resumed", runOptions })).result();
      expect(suspended.status).toBe("suspended");
      const approvalId = suspended.pendingApproval!.id;
      const handle = await t.front.submit("", {
        threadKey: "resumed",
        runOptions,
        resume: { approvalId, decision: { outcome: "approve" } },
      });
      // The stored answer reached the CLI (it echoes it): the thread store has it recorded. Then the worker dies.
      await waitFor(handle, (e) => e.attempt === 1 && isEcho(e));
      expect((await t.store.getPendingApproval(approvalId))?.status).toBe("answered");
      await t.kill(first);
      await t.worker("second");
      const result = await handle.result();
      expect(result.status).toBe("completed");
      expect(result.text).toBe("resumed after the kill");
      const events: FleetEvent[] = [];
      for await (const e of handle.events()) events.push(e);
      expect(events.filter((e) => e.event.type === "attempt-started").map((e) => e.attempt)).toEqual([1, 2]);
      expect(events.filter(isEcho).map((e) => e.attempt)).toEqual([1, 2]);
      expect((await t.store.getPendingApproval(approvalId))?.decision).toEqual({ outcome: "approve" });
      expect((await t.store.resolve({ key: "resumed" }))?.revision).toBe(1);
      await until(() => processesWith(t.marker).length === 0, "no fake CLI left");
    });
  });
}
