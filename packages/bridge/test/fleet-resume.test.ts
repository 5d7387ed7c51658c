import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import type { Interrupt, Message } from "@ag-ui/core";
import { afterEach, describe, expect, it } from "vitest";
import type { RunOptions } from "adaptor";
import { fakeCodexSteps, fakeRun } from "../../fleet/test/support/fake-codex.js";
import { PG_URL, skipWithoutServer } from "../../fleet/test/support/pg.js";
import { AG_UI_APPROVAL_INTERRUPT, INTERRUPT_CANCELLED_REASON } from "../src/index.js";
import { postJson, readUntil, sseMessages, type Served, type SseMessage } from "./support.js";
import { fleetPair, type FleetPair } from "./support/fleet-pair.js";

// Suspended thread turns over a fleet: two bridge front-ends (each on its own Fleet instance) and a
// worker on the testkit's fake codex CLI, one PostgreSQL. A turn run with `suspend` ends paused on
// its stored approval; the resume (with its answer) is submitted through either front-end, runs on
// a worker, is followed from the other front-end with Last-Event-ID, and happens exactly once.

function userMessage(content: string): Message {
  return { id: randomUUID(), role: "user", content };
}

/** Every run: the fake CLI asks to run `npm test`, then replies; the turn suspends on the ask (a resume answers it when the CLI asks again). */
function suspending(marker: string): RunOptions {
  return { suspend: {}, env: { ...fakeRun(fakeCodexSteps("after the approval", { ask: "npm test" })).env, [marker]: "1" } };
}

/** All messages of a stream, to its end. */
async function readAll(response: Response): Promise<SseMessage[]> {
  const all: SseMessage[] = [];
  for await (const message of sseMessages(response)) all.push(message);
  return all;
}

if (!PG_URL) {
  skipWithoutServer("suspended turns over a fleet");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** Two front-ends and a worker on a fresh schema, every run suspending on its first ask. */
  async function fleetOf(marker: string): Promise<FleetPair> {
    const pair = await fleetPair(url, marker, () => suspending(marker));
    closers.push(() => pair.close());
    return pair;
  }

  describe("suspended turns over a fleet", () => {
    it("raw: two front-ends resume the same suspended turn at once: one runs it on a worker, the other gets 409 approval_resolved; the winner is followed on the other front-end with Last-Event-ID", async () => {
      const marker = `BRIDGE_RESUME_${randomUUID()}`;
      const { a, b, store } = await fleetOf(marker);
      const first = await readAll(await postJson(`${a.url}/runs`, { prompt: "publish", threadKey: "raw-resume" }));
      const suspended = first.at(-1)!.data;
      expect(suspended).toMatchObject({ type: "run-finished", ok: true, suspended: true });
      const pending = suspended.pendingApproval as { id: string; key: string; status: string };
      expect(pending).toMatchObject({ key: "raw-resume", status: "pending" });

      // The same resume through both front-ends at once: exactly one is taken.
      const body = { threadKey: "raw-resume", resume: { approvalId: pending.id, decision: "approve" } };
      const controller = new AbortController();
      const answers = await Promise.all([
        postJson(`${a.url}/runs`, body, { signal: controller.signal }),
        postJson(`${b.url}/runs`, body, { signal: controller.signal }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const winner = answers.find((r) => r.status === 200)!;
      const loser = answers.find((r) => r.status === 409)!;
      expect(await loser.json()).toEqual({
        error: { code: "approval_resolved", message: expect.stringContaining(pending.id), status: "answered" },
      });
      const [winnerFront, otherFront] = winner === answers[0] ? [a, b] : [b, a];
      const key = winner.headers.get("x-adaptor-run-id")!;

      // The winner's client leaves after the first event; the run goes on and is read on the other front-end.
      const head = await readUntil(sseMessages(winner), (m) => m.data.type === "attempt-started");
      controller.abort();
      expect(head.at(-1)!.data).toMatchObject({ type: "attempt-started", attempt: 1, worker: "w1" });
      const rest = await readAll(await fetch(`${otherFront.url}/runs/${key}/events`, { headers: { "last-event-id": head.at(-1)!.id! } }));
      const all = [...head, ...rest];
      const ids = all.map((m) => Number(m.id));
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      expect(new Set(ids).size).toBe(ids.length);
      expect(all.at(-1)!.data).toMatchObject({ type: "run-finished", ok: true });
      expect(all.at(-1)!.data).not.toHaveProperty("suspended");
      // The CLI asked again and the stored answer was applied without asking anyone.
      expect(all.some((m) => m.data.type === "approval-request")).toBe(false);
      expect(all.filter((m) => m.data.type === "notice").map((m) => m.data.kind)).toContain("approval.replayed");
      expect(all.filter((m) => m.data.type === "text-delta").map((m) => m.data.text)).toEqual(["after the approval"]);
      // A full replay from the front-end that took it is the same.
      expect(await readAll(await fetch(`${winnerFront.url}/runs/${key}/events`))).toEqual(all);
      expect((await winnerFront.settledRun(key)).result).toMatchObject({ text: "after the approval", status: "completed" });

      // Once resumed, the approval is not resumed again through any front-end; the turn committed once.
      for (const front of [a, b]) {
        const late = await postJson(`${front.url}/runs`, body);
        expect(late.status).toBe(409);
        expect(((await late.json()) as { error: { code: string } }).error.code).toBe("approval_resolved");
      }
      expect((await store.resolve({ key: "raw-resume" }))?.revision).toBe(1);
      expect((await store.listPendingApprovals("raw-resume")).filter((p) => p.status === "pending")).toEqual([]);
    });

    it("raw: a resume that fails on the worker (a choice the codex ask does not list, nothing recorded) releases the approval: a later resume through the other front-end completes the turn", async () => {
      const marker = `BRIDGE_RESUME_${randomUUID()}`;
      const { a, b } = await fleetOf(marker);
      const first = await readAll(await postJson(`${a.url}/runs`, { prompt: "publish", threadKey: "raw-retry" }));
      const id = (first.at(-1)!.data.pendingApproval as { id: string }).id;
      const resume = (front: Served, decision: Record<string, unknown>) =>
        postJson(`${front.url}/runs`, { threadKey: "raw-retry", resume: { approvalId: id, ...decision } });
      const wrong = await readAll(await resume(a, { decision: "answer", choice: "x" }));
      expect(wrong.at(-1)!.data).toMatchObject({ type: "run-finished", ok: false, code: "approval_invalid_choice" });
      const right = await readAll(await resume(b, { decision: "deny", reason: "not now" }));
      expect(right.at(-1)!.data).toMatchObject({ type: "run-finished", ok: true });
      expect(right.filter((m) => m.data.type === "text-delta").map((m) => m.data.text)).toEqual(["after the approval"]);
    });

    it("ag-ui: @ag-ui/client gets the interrupt from front-end A, resumes it through front-end B; a second resume is 409 and A replays the resumed run", async () => {
      const marker = `BRIDGE_RESUME_${randomUUID()}`;
      const { a, b } = await fleetOf(marker);
      const threadId = randomUUID();
      const client = new HttpAgent({ url: `${a.url}/ag-ui`, threadId, initialMessages: [userMessage("publish")] });
      const outcomes: string[] = [];
      let interrupts: Interrupt[] = [];
      await client.runAgent(
        { runId: randomUUID() },
        {
          onRunFinishedEvent: (params) => {
            outcomes.push(params.outcome);
            if (params.outcome === "interrupt") interrupts = params.interrupts;
          },
        },
      );
      expect(outcomes).toEqual(["interrupt"]);
      expect(interrupts).toEqual([
        expect.objectContaining({
          reason: AG_UI_APPROVAL_INTERRUPT,
          metadata: expect.objectContaining({ kind: "permission", inputEditable: false }),
        }),
      ]);
      expect(client.pendingInterrupts.map((i) => i.id)).toEqual([interrupts[0]!.id]);

      // The page's next request lands on front-end B.
      client.url = `${b.url}/ag-ui`;
      const resumeRunId = randomUUID();
      const resume = [{ interruptId: interrupts[0]!.id, status: "resolved" as const, payload: { decision: "approve" } }];
      const { result } = await client.runAgent(
        { runId: resumeRunId, resume },
        { onRunFinishedEvent: (params) => void outcomes.push(params.outcome) },
      );
      expect(outcomes).toEqual(["interrupt", "success"]);
      expect(result).toEqual({ text: "after the approval" });
      expect(client.pendingInterrupts).toEqual([]);
      expect((await b.settledRun(resumeRunId)).result?.status).toBe("completed");

      // Another tab resuming the same interrupt through A is refused before any run starts.
      const twice = await postJson(`${a.url}/ag-ui`, {
        threadId,
        runId: randomUUID(),
        messages: [],
        state: {},
        tools: [],
        context: [],
        forwardedProps: {},
        resume,
      });
      expect(twice.status).toBe(409);
      expect(((await twice.json()) as { error: { code: string; status: string } }).error).toMatchObject({
        code: "approval_resolved",
        status: "answered",
      });
      // The resumed run, replayed from A, from the start and from the middle.
      const full = await readAll(await fetch(`${a.url}/runs/${resumeRunId}/events`));
      expect(full[0]!.data).toMatchObject({ type: "RUN_STARTED", threadId, runId: resumeRunId });
      expect(full.at(-1)!.data).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
      const middle = Math.floor(full.length / 2);
      const tail = await readAll(await fetch(`${a.url}/runs/${resumeRunId}/events`, { headers: { "last-event-id": full[middle]!.id! } }));
      expect(tail).toEqual(full.slice(middle + 1));
    });

    it("ag-ui: a resume entry with status cancelled denies the interrupt over the fleet, and the turn goes on with the denial", async () => {
      const marker = `BRIDGE_RESUME_${randomUUID()}`;
      const { a, b, store } = await fleetOf(marker);
      const threadId = randomUUID();
      const client = new HttpAgent({ url: `${b.url}/ag-ui`, threadId, initialMessages: [userMessage("publish")] });
      await client.runAgent({ runId: randomUUID() });
      const [interrupt] = client.pendingInterrupts;
      client.url = `${a.url}/ag-ui`;
      const outcomes: string[] = [];
      await client.runAgent(
        { runId: randomUUID(), resume: [{ interruptId: interrupt!.id, status: "cancelled" }] },
        { onRunFinishedEvent: (params) => void outcomes.push(params.outcome) },
      );
      expect(outcomes).toEqual(["success"]);
      const decided = await store.getPendingApproval(interrupt!.id);
      expect(decided?.decision).toEqual({ outcome: "deny", reason: INTERRUPT_CANCELLED_REASON });
    });
  });
}
