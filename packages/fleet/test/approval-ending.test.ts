// A run that ends by itself while one of its approvals waits (its own `timeoutMs`, the CLI exiting
// mid-question) closes that approval on the worker as it ends, before its verdict: from then on
// `approval()` reads `closed`, `answer()` from any host is refused `closed`, and neither the run's
// `pendingApprovals()` nor the fleet-wide `pendingApprovals()` lists it. The worker is held
// deterministically between the run's end and its verdict: the thread store's lease release (the
// turn's last write, before the verdict) waits on a barrier of the test.
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { Agent, InvalidOptionError, RunError } from "adaptor";
import { ApprovalNotPendingError, InvalidThreadKeyError } from "@adaptor/threadstore";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import {
  Fleet,
  FleetAttemptsExhaustedError,
  FleetRunCancelledError,
  FleetRunExpiredError,
  type FleetEvent,
  type RecordedAgentEvent,
  type RunHandle,
} from "@adaptor/fleet";
import type { FakeCliStep } from "@adaptor/testkit/fake-cli";
import { fakeCliStoreView, fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { until } from "./support/processes.js";

/** A barrier on the thread store's lease release: `arm()` makes the next release wait until `open()`. */
class ReleaseGate {
  #armed = false;
  #reached!: () => void;
  #open!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.#reached = resolve));
  readonly #opened = new Promise<void>((resolve) => (this.#open = resolve));
  arm(): void {
    this.#armed = true;
  }
  open(): void {
    this.#open();
  }
  async pass(): Promise<void> {
    if (!this.#armed) return;
    this.#reached();
    await this.#opened;
  }
}

describe("fleet pendingApprovals options", () => {
  it("a limit out of 1..1000 or a bad thread key is refused with its typed error before the fleet starts", async () => {
    const fleet = new Fleet({ connectionString: "postgres://127.0.0.1:1/none" });
    for (const limit of [0, 1001, 2.5, "10"]) {
      const error = await fleet.pendingApprovals({ limit: limit as number }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).subject).toBe("fleet pendingApprovals");
      expect((error as InvalidOptionError).field).toBe("limit");
    }
    await expect(fleet.pendingApprovals({ threadKey: "   " })).rejects.toBeInstanceOf(InvalidThreadKeyError);
    await expect(fleet.pendingApprovals({ threadKey: "" })).rejects.toBeInstanceOf(TypeError);
    await fleet.close();
  });

  it("a null limit, a misspelt key or options that are not an object are refused with InvalidOptionError, not read as the defaults", async () => {
    const fleet = new Fleet({ connectionString: "postgres://127.0.0.1:1/none" });
    const nullLimit = await fleet.pendingApprovals({ limit: null as unknown as number }).catch((e: unknown) => e);
    expect(nullLimit).toBeInstanceOf(InvalidOptionError);
    expect((nullLimit as InvalidOptionError).field).toBe("limit");
    const misspelt = await fleet.pendingApprovals({ limt: 5 } as never).catch((e: unknown) => e);
    expect(misspelt).toBeInstanceOf(InvalidOptionError);
    expect(misspelt).toMatchObject({ subject: "fleet pendingApprovals", field: "limt", suggestion: "limit" });
    for (const options of [null, "x", [1]]) {
      const error = await fleet.pendingApprovals(options as never).catch((e: unknown) => e);
      expect(error, JSON.stringify(options)).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).subject).toBe("fleet pendingApprovals");
    }
    await fleet.close();
  });
});

if (!PG_URL) {
  skipWithoutServer("fleet approvals when their run ends");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function host(schema: string, gate?: ReleaseGate, options: { maxAttempts?: number } = {}): Promise<Fleet> {
    const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
    await store.migrate();
    const view = fakeCliStoreView(store);
    const gated = gate
      ? new Proxy(view, {
          get: (target, property) => {
            if (property === "releaseLease")
              return async (...args: Parameters<PostgresThreadStore["releaseLease"]>) => {
                await gate.pass();
                return target.releaseLease(...args);
              };
            const value: unknown = Reflect.get(target, property, target);
            return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        })
      : view;
    const fleet = new Fleet({ connectionString: url, schema, threadStore: gated, ...options });
    await fleet.start();
    closers.push(async () => {
      gate?.open();
      await fleet.close();
      await store.close();
    });
    return fleet;
  }

  /** Reads the handle's events live until `match`; returns it. */
  async function waitFor(handle: RunHandle, match: (e: FleetEvent) => boolean): Promise<FleetEvent> {
    for await (const e of handle.events()) if (match(e)) return e;
    throw new Error("the run ended before the awaited event");
  }

  const requestId = (e: FleetEvent): string => ((e.event as RecordedAgentEvent).request as { id: string }).id;
  /** The SDK's notice that the run ended approval `id` unanswered (its request expired). */
  const expiredNotice = (id: string) => (e: FleetEvent) => {
    const event = e.event as { type: string; kind?: string; data?: { id?: string; outcome?: string } };
    return event.type === "notice" && event.kind === "approval.resolved" && event.data?.id === id && event.data.outcome === "expired";
  };

  /** What every host reads of approval `id` of run `handle` that its run's end closed. */
  async function expectClosed(front: Fleet, handle: RunHandle, id: string): Promise<void> {
    expect((await front.approval(id))?.status).toBe("closed");
    expect(await handle.pendingApprovals()).toEqual([]);
    const refused = await front.answer(id, { outcome: "approve" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApprovalNotPendingError);
    expect((refused as ApprovalNotPendingError).status).toBe("closed");
    expect((await front.approval(id))?.status).toBe("closed");
  }

  /** The steps of a fake codex that asks, then exits 1 a second later without waiting for the answer. */
  function asksThenExits(): FakeCliStep[] {
    const steps = fakeCodexSteps("never", { ask: "npm test" });
    const asked = steps.findIndex((step) => "echoStdinLine" in step);
    return [...steps.slice(0, asked), { sleepMs: 1000 }, { exit: 1 }];
  }

  describe("an approval whose run ends before it is answered", () => {
    it.each([
      { ending: "the run's own timeoutMs", runOptions: { ...fakeRun(fakeCodexSteps("never", { ask: "npm test" })), timeoutMs: 3000 } },
      { ending: "the CLI exiting mid-question (a driver failure)", runOptions: fakeRun(asksThenExits()) },
    ])(
      "$ending: closed on the worker before the verdict is written; answer() from another host is refused closed",
      async ({ runOptions }) => {
        const schema = freshSchema("fleet_ending");
        const gate = new ReleaseGate();
        const front = await host(schema);
        const back = await host(schema, gate);
        await back.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
        const handle = await front.submit("run the tests", { threadKey: "ends", runOptions });
        const id = requestId(await waitFor(handle, (e) => e.event.type === "approval-request"));
        gate.arm();
        expect((await front.approval(id))?.status).toBe("pending");
        // The run ended: its request expired on the worker, which now waits to release the lease,
        // its verdict not written yet.
        await gate.reached;
        await waitFor(handle, expiredNotice(id));
        expect((await front.handle(handle.id).info()).settled).toBe(false);
        await expectClosed(front, handle, id);
        gate.open();
        await expect(handle.result()).rejects.toThrow();
        await expectClosed(front, handle, id);
      },
    );
  });

  /** Whether approval `id`'s row is closed in PostgreSQL (a verdict closes its run's open ones with it). */
  async function rowClosed(schema: string, id: string): Promise<boolean> {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const { rows } = await db.query<{ closed: boolean }>(
        `SELECT closed_at IS NOT NULL AS closed FROM "${schema}".adaptor_fleet_approvals WHERE id = $1`,
        [id],
      );
      return rows[0]!.closed;
    } finally {
      await db.end();
    }
  }

  /**
   * approval(), the run's pendingApprovals() and the fleet-wide listing (all, and by key) say the
   * same of `id`; one not pending is refused by answer() with that status.
   */
  async function expectAgree(front: Fleet, handle: RunHandle, id: string, status: "pending" | "answered" | "closed"): Promise<void> {
    expect((await front.approval(id))?.status).toBe(status);
    const listed = status === "pending";
    expect((await handle.pendingApprovals()).some((a) => a.id === id)).toBe(listed);
    const everywhere = await front.pendingApprovals();
    expect(everywhere.some((a) => a.id === id)).toBe(listed);
    const { threadKey } = await handle.info();
    expect((await front.pendingApprovals({ threadKey: threadKey! })).some((a) => a.id === id)).toBe(listed);
    if (listed) return;
    const answered = await front.answer(id, { outcome: "approve" }).catch((e: unknown) => e);
    expect(answered).toBeInstanceOf(ApprovalNotPendingError);
    expect((answered as ApprovalNotPendingError).status).toBe(status);
  }

  describe("pendingApprovals() of a run and of the fleet agree with approval() after each ending", () => {
    const asking = (extra: Record<string, unknown> = {}) => ({ ...fakeRun(fakeCodexSteps("done", { ask: "npm test" })), ...extra });

    it("a waiting approval is listed everywhere with its run, key and time; success (answered), RunError (its deadline closed it) and cancel (closed) take it off every list", async () => {
      const schema = freshSchema("fleet_listing");
      const front = await host(schema);
      const back = await host(schema);
      await back.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }), { concurrency: 3 });
      const ok = await front.submit("approve me", { threadKey: "ok", runOptions: asking() });
      const failed = await front.submit("let me time out", {
        threadKey: "failed",
        runOptions: asking({ policy: { approvals: { permission: "ask", timeoutMs: 2000, onTimeout: "abort" } } }),
      });
      const cancelled = await front.submit("cancel me", { threadKey: "cancelled", runOptions: asking() });
      const ids = new Map<RunHandle, string>();
      for (const handle of [ok, failed, cancelled])
        ids.set(handle, requestId(await waitFor(handle, (e) => e.event.type === "approval-request")));
      // The cancelled run's question, while it waits: listed with its run, key and time.
      const waiting = (await back.pendingApprovals({ threadKey: "cancelled" }))[0];
      expect(waiting).toMatchObject({ id: ids.get(cancelled), runId: cancelled.id, status: "pending", threadKey: "cancelled" });
      expect(Number.isNaN(Date.parse(waiting!.askedAt))).toBe(false);
      expect((waiting!.request as { toolName?: string; kind?: string }).kind).toBe("permission");
      expect((await front.pendingApprovals({ limit: 1 })).length).toBe(1);

      // Success: answered through the listing's id, the run finishes with it.
      await expectAgree(front, ok, ids.get(ok)!, "pending");
      await front.answer(ids.get(ok)!, { outcome: "approve" });
      expect((await ok.result()).text).toBe("done");
      await expectAgree(front, ok, ids.get(ok)!, "answered");
      // RunError: the approval's deadline closed it and ended the run.
      const error = await failed.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunError);
      expect((error as RunError).reason).toBe("approval_timeout");
      await expectAgree(front, failed, ids.get(failed)!, "closed");
      // Cancel: the verdict closes the row in its own statement.
      await cancelled.cancel("not needed");
      await expect(cancelled.result()).rejects.toBeInstanceOf(FleetRunCancelledError);
      await expectAgree(front, cancelled, ids.get(cancelled)!, "closed");
      expect(await rowClosed(schema, ids.get(cancelled)!)).toBe(true);
      expect(await front.pendingApprovals()).toEqual([]);
    });

    it("a turn queued behind a waiting approval expires (queueDeadlineMs) without touching it: still pending and listed, then answered", async () => {
      const schema = freshSchema("fleet_listing");
      const front = await host(schema);
      await front.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const first = await front.submit("ask", { threadKey: "k", runOptions: asking() });
      const id = requestId(await waitFor(first, (e) => e.event.type === "approval-request"));
      const behind = await front.submit("queued behind", { threadKey: "k", queueDeadlineMs: 1000 });
      await expect(behind.result()).rejects.toBeInstanceOf(FleetRunExpiredError);
      expect(await behind.pendingApprovals()).toEqual([]);
      expect((await front.pendingApprovals()).map((a) => a.runId)).toEqual([first.id]);
      await expectAgree(front, first, id, "pending");
      await front.answer(id, { outcome: "approve" });
      expect((await first.result()).text).toBe("done");
      await expectAgree(front, first, id, "answered");
    });

    it("a worker drained while asking, with attempts left: its question is closed when the drain re-queues the run, before the retried attempt starts, which asks again", async () => {
      const schema = freshSchema("fleet_listing");
      const front = await host(schema);
      const draining = await host(schema);
      await draining.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const handle = await front.submit("ask", { threadKey: "retried", runOptions: asking() });
      const first = requestId(await waitFor(handle, (e) => e.event.type === "approval-request"));
      await draining.drain({ timeoutMs: 1000 });
      // The attempt ended (pg-boss re-queued its job): an answer would reach nobody now.
      await waitFor(handle, expiredNotice(first));
      await until(async () => (await front.approval(first))?.status !== "pending", "the drained attempt's job to be re-queued");
      await expectAgree(front, handle, first, "closed");
      await front.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const second = requestId(await waitFor(handle, (e) => e.event.type === "approval-request" && e.attempt === 2));
      await expectAgree(front, handle, first, "closed");
      await expectAgree(front, handle, second, "pending");
      expect((await front.pendingApprovals()).map((a) => a.id)).toEqual([second]);
      await front.answer(second, { outcome: "approve" });
      expect((await handle.result()).text).toBe("done");
      await expectAgree(front, handle, second, "answered");
      await expectAgree(front, handle, first, "closed");
    });

    it("attempts exhausted: the question of a last attempt whose worker drained is closed at once, and stays closed with the exhausted verdict", async () => {
      const schema = freshSchema("fleet_listing");
      const front = await host(schema, undefined, { maxAttempts: 1 });
      const draining = await host(schema, undefined, { maxAttempts: 1 });
      await draining.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const handle = await front.submit("ask", { threadKey: "last", runOptions: asking() });
      const id = requestId(await waitFor(handle, (e) => e.event.type === "approval-request"));
      await expectAgree(front, handle, id, "pending");
      // The drain's timeout stops the run on its only attempt: no retry can apply an answer.
      const drained = draining.drain({ timeoutMs: 1000 });
      await waitFor(handle, expiredNotice(id));
      await until(async () => (await front.approval(id))?.status !== "pending", "the drained attempt to close its question");
      expect((await handle.info()).settled).toBe(false);
      await expectAgree(front, handle, id, "closed");
      await drained;
      // The retried job finds no attempt left and writes the exhausted verdict.
      await front.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      await expect(handle.result()).rejects.toBeInstanceOf(FleetAttemptsExhaustedError);
      await expectAgree(front, handle, id, "closed");
      expect(await rowClosed(schema, id)).toBe(true);
    });

    it("a run without a thread key whose only worker drains while it asks gets its verdict from that worker (attempts exhausted, drained), no worker needed afterwards", async () => {
      const schema = freshSchema("fleet_listing");
      const front = await host(schema);
      const draining = await host(schema);
      await draining.worker(() => new Agent(fakeCodex("unused")));
      const handle = await front.submit("ask", { runOptions: asking() });
      const id = requestId(await waitFor(handle, (e) => e.event.type === "approval-request"));
      await expectAgree(front, handle, id, "pending");
      // The drain's timeout stops the run; a run without a thread key is not retried.
      await draining.drain({ timeoutMs: 1000 });
      expect((await handle.info()).settled).toBe(true);
      const error = await handle.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FleetAttemptsExhaustedError);
      expect(error).toMatchObject({ runId: handle.id, attempts: 1, drained: true });
      expect((error as Error).message).toBe(
        `fleet run ${handle.id}: its worker was drained before attempt 1 finished; not attempted again`,
      );
      const stored: FleetEvent[] = [];
      for await (const e of handle.events({ after: 0 })) stored.push(e);
      expect(stored.filter(expiredNotice(id))).toHaveLength(1);
      expect(stored.at(-1)?.event).toMatchObject({ type: "verdict", verdict: { kind: "attempts-exhausted", attempts: 1, drained: true } });
      expect(stored.every((e) => e.attempt === 1)).toBe(true);
      expect(await rowClosed(schema, id)).toBe(true);
      await expectAgree(front, handle, id, "closed");
    });
  });
}
