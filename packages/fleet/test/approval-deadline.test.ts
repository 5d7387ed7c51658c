// An approval's deadline (`policy.approvals.timeoutMs`) on the worker racing an answer from another
// host: exactly one of the two wins, fleet-wide. Either the answer is applied (the run goes on
// with it) or it is refused `closed` and the deadline's fallback acts; `approval()` reads what
// happened. The race is held open deterministically: a transaction of the test holds the approval's
// row while the answer and the worker's deadline both queue behind it, in a known order.
import { describe, expect, it } from "vitest";
import pg from "pg";
import { Agent, RunError } from "adaptor";
import type { StoredApprovalDecision } from "@adaptor/threadstore";
import { ApprovalNotPendingError } from "@adaptor/threadstore";
import type { RecordedAgentEvent, RunHandle } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { onFakeCliFleet } from "./support/fake-cli-host.js";
import { freshSchema } from "./support/pg.js";
import { until } from "./support/processes.js";

onFakeCliFleet("fleet approval deadline", ({ url, closers, host }) => {
  async function client(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    closers.push(() => c.end());
    return c;
  }

  /** The approval the run asked: its id and deadline. */
  async function asked(handle: RunHandle): Promise<{ id: string; deadline: Date }> {
    for await (const { event } of handle.events()) {
      if (event.type !== "approval-request") continue;
      const request = (event as RecordedAgentEvent).request as { id: string; deadline: string };
      return { id: request.id, deadline: new Date(request.deadline) };
    }
    throw new Error("no approval-request event");
  }

  /** The line the fake CLI got back for its approval request (the driver's answer), echoed on its stdout. */
  async function echoed(handle: RunHandle): Promise<string> {
    const lines: string[] = [];
    for await (const { event } of handle.events()) {
      if (event.type === "process" && typeof event.text === "string" && event.text.includes('"echo"')) lines.push(event.text);
    }
    expect(lines).toHaveLength(1);
    return lines[0]!;
  }

  type Case = {
    readonly onTimeout: "abort" | "continue";
    readonly decision: StoredApprovalDecision;
    /** Which of the two writes reaches the approval's row first. */
    readonly first: "answer" | "deadline";
  };

  async function race({ onTimeout, decision, first }: Case) {
    const schema = freshSchema("fleet_deadline");
    const front = await host(schema);
    const back = await host(schema);
    await back.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }), { name: "w1" });
    const handle = await front.submit("run the tests", {
      threadKey: "deadline",
      runOptions: {
        ...fakeRun(fakeCodexSteps("after the approval", { ask: "npm test" })),
        policy: { approvals: { permission: "ask", timeoutMs: 3000, onTimeout } },
      },
    });
    const { id, deadline } = await asked(handle);
    const holder = await client();
    const watcher = await client();
    /** Statements of this test's schema waiting on a lock (read outside the holder's transaction). */
    const waiting = async (): Promise<string[]> => {
      const { rows } = await watcher.query<{ query: string }>(
        `SELECT query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
        [`%"${schema}".%`],
      );
      return rows.map((r) => r.query);
    };
    // The approval's row held by the test: every write to it queues behind this transaction.
    await holder.query("BEGIN");
    await holder.query(`SELECT 1 FROM "${schema}".adaptor_fleet_approvals WHERE id = $1 FOR UPDATE`, [id]);
    let answered = false;
    const answer = () =>
      front
        .answer(id, decision)
        .then(
          () => "accepted" as const,
          (e: unknown) => e,
        )
        .finally(() => (answered = true));
    let answering: Promise<unknown> | undefined;
    if (first === "answer") {
      answering = answer();
      await until(async () => answered || (await waiting()).length > 0, "the answer to wait on the approval's row");
      expect(answered).toBe(false);
    }
    // The worker's deadline timer runs in this process: once this one fires, a second after the
    // deadline, it has fired; the worker's reaction to it is then a statement queued behind the
    // held row (or the answer), or, if nothing holds it, the run's verdict.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline.getTime() - Date.now()) + 1000));
    const queuedBefore = first === "answer" ? 1 : 0;
    let settled = false;
    void front
      .handle(handle.id)
      .verdict()
      .finally(() => (settled = true));
    await until(async () => settled || (await waiting()).length > queuedBefore, "the worker to act on its deadline");
    if (first === "deadline") {
      answering = answer();
      await until(async () => answered || (await waiting()).length > 1, "the answer to queue behind the deadline");
    }
    await holder.query("COMMIT");
    const outcome = await answering;
    const verdict = await handle.result().then(
      (result) => ({ ok: true as const, result }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    return { id, front, handle, outcome, verdict };
  }

  describe("an approval's deadline on the worker racing an answer from another host", () => {
    it("a run that goes on past its approval's deadline (onTimeout continue) reads that approval closed at once, and an answer to it is refused closed", async () => {
      const schema = freshSchema("fleet_deadline");
      const front = await host(schema);
      const back = await host(schema);
      await back.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const handle = await front.submit("run the tests", {
        threadKey: "goes-on",
        runOptions: {
          // After the deny, the fake CLI works on for a minute: the run is still going when the answer comes.
          ...fakeRun(fakeCodexSteps("never", { ask: "npm test", sleepMs: 60_000 })),
          policy: { approvals: { permission: "ask", timeoutMs: 1000, onTimeout: "continue" } },
        },
      });
      const { id } = await asked(handle);
      for await (const { event } of handle.events()) {
        const data = (event as { kind?: string; data?: { id?: string; outcome?: string } }).data;
        if (event.type === "notice" && (event as { kind?: string }).kind === "approval.resolved" && data?.id === id) {
          expect(data.outcome).toBe("timeout");
          break;
        }
      }
      expect((await front.handle(handle.id).info()).settled).toBe(false);
      expect((await front.approval(id))?.status).toBe("closed");
      expect(await front.handle(handle.id).pendingApprovals()).toEqual([]);
      const refused = await front.answer(id, { outcome: "approve" }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ApprovalNotPendingError);
      expect((refused as ApprovalNotPendingError).status).toBe("closed");
      expect((await front.approval(id))?.status).toBe("closed");
      await handle.cancel();
      await expect(handle.result()).rejects.toThrow();
    });

    it.each([
      { onTimeout: "abort", decision: { outcome: "approve" } },
      { onTimeout: "continue", decision: { outcome: "approve" } },
      { onTimeout: "abort", decision: { outcome: "deny", reason: "not today" } },
    ] as const)(
      "an answer ($decision.outcome) written first wins over the deadline (onTimeout $onTimeout): the run goes on with it and approval() reads answered",
      async ({ onTimeout, decision }) => {
        const { id, front, handle, outcome, verdict } = await race({ onTimeout, decision, first: "answer" });
        expect(outcome).toBe("accepted");
        expect(verdict.ok ? verdict.result.text : verdict.error).toBe("after the approval");
        const line = await echoed(handle);
        if (decision.outcome === "approve") expect(line).toContain('"accept"');
        else expect(line).toContain("not today");
        expect((await front.approval(id))?.status).toBe("answered");
      },
    );

    it.each([{ onTimeout: "abort" }, { onTimeout: "continue" }] as const)(
      "the deadline reaching the approval first (onTimeout $onTimeout) refuses the answer with ApprovalNotPendingError closed and approval() reads closed",
      async ({ onTimeout }) => {
        const { id, front, handle, outcome, verdict } = await race({ onTimeout, decision: { outcome: "approve" }, first: "deadline" });
        expect(outcome).toBeInstanceOf(ApprovalNotPendingError);
        expect((outcome as ApprovalNotPendingError).status).toBe("closed");
        if (onTimeout === "abort") {
          expect(verdict.ok).toBe(false);
          expect(verdict.ok ? undefined : verdict.error).toBeInstanceOf(RunError);
          expect((verdict as { error: RunError }).error.reason).toBe("approval_timeout");
        } else {
          // The deny of the deadline reached the agent and the run went on.
          expect(verdict.ok ? verdict.result.text : verdict.error).toBe("after the approval");
          expect(await echoed(handle)).toContain("approval timed out");
        }
        expect((await front.approval(id))?.status).toBe("closed");
      },
    );
  });
});
