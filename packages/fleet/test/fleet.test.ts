import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { PgBoss } from "pg-boss";
import type { Meter, ObservableResult } from "@opentelemetry/api";
import { Agent, ErrAgentFailed, InvalidOptionError, InvalidPolicyError, RunError } from "adaptor";
import { DriverError, ErrCode, isError } from "@adaptor/errors";
import { ApprovalNotPendingError, InvalidThreadKeyError } from "@adaptor/threadstore";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import {
  ErrFleetQueueFull,
  ErrFleetRemote,
  ErrFleetRunCancelled,
  ErrFleetRunExists,
  Fleet,
  FleetQueueFullError,
  FleetRemoteError,
  FleetRunCancelledError,
  FleetRunExistsError,
  FleetRunNotFoundError,
  type FleetEvent,
  type RecordedAgentEvent,
  type RunHandle,
} from "@adaptor/fleet";
import { fakeCliStoreView, fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { processesWith, until } from "./support/processes.js";

/** The first event of `type` the handle's log holds (waits for it). */
async function firstOf(handle: RunHandle, type: string): Promise<FleetEvent> {
  for await (const e of handle.events()) if (e.event.type === type) return e;
  throw new Error(`no ${type} event`);
}

if (!PG_URL) {
  skipWithoutServer("fleet");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function host(
    schema: string,
    options: { maxQueued?: number; meter?: Meter } = {},
    finalize?: (commit: () => Promise<unknown>) => Promise<unknown>,
  ) {
    const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
    await store.migrate();
    const view = fakeCliStoreView(store, finalize);
    const fleet = new Fleet({ connectionString: url, schema, threadStore: view, ...options });
    await fleet.start();
    closers.push(async () => {
      await fleet.close();
      await store.close();
    });
    return { fleet, store };
  }

  describe("fleet", () => {
    it("a run submitted on one host is served by a worker on another and both read the same verdict and events", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const back = await host(schema);
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("hello from the worker"), { threadStore: threadStore! }), {
        name: "w1",
      });
      const handle = await front.fleet.submit("say hello");
      const result = await handle.result();
      expect(result.text).toBe("hello from the worker");
      const other = await back.fleet.handle(handle.id).result();
      expect(other.text).toBe("hello from the worker");
      const events: FleetEvent[] = [];
      for await (const e of front.fleet.handle(handle.id).events()) events.push(e);
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
      expect(events[0]?.event).toEqual({ type: "attempt-started", attempt: 1, worker: "w1" });
      expect(events.at(-2)?.event.type).toBe("run-finished");
      expect(events.at(-1)?.event.type).toBe("verdict");
      const replayed: FleetEvent[] = [];
      for await (const e of back.fleet.handle(handle.id).events({ after: 2 })) replayed.push(e);
      expect(replayed).toEqual(events.slice(2));
    });

    it("thread turns submitted together run one at a time in submission order and each commits once", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const back = await host(schema);
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("turn done", 200), { threadStore: threadStore!, spawn: true }), {
        concurrency: 3,
      });
      const handles = [];
      for (let i = 0; i < 4; i++) {
        const runOptions = fakeRun(fakeCodexSteps(`turn ${i} done`, { sleepMs: 200, resume: i > 0 }));
        handles.push(await front.fleet.submit(`turn ${i}`, { threadKey: "k1", runOptions }));
      }
      const texts = [];
      for (const h of handles) texts.push((await h.result()).text);
      expect(texts).toEqual(["turn 0 done", "turn 1 done", "turn 2 done", "turn 3 done"]);
      const record = await front.store.resolve({ key: "k1" });
      expect(record?.revision).toBe(4);
    });

    it("an approval asked on a worker is answered from another host exactly once and the worker applies it", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const back = await host(schema);
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const runOptions = fakeRun(fakeCodexSteps("after the approval", { ask: "npm test" }));
      const handle = await front.fleet.submit("run the tests", { runOptions });
      const asked = await firstOf(front.fleet.handle(handle.id), "approval-request");
      const request = (asked.event as RecordedAgentEvent).request as { id: string; toolName: string };
      expect(request.toolName).toBe("shell");
      expect((await front.fleet.handle(handle.id).pendingApprovals()).map((a) => a.id)).toEqual([request.id]);
      // `follow: false` reads the log so far and ends, while the run still waits.
      const sofar: string[] = [];
      for await (const { event } of back.fleet.handle(handle.id).events({ follow: false })) sofar.push(event.type);
      expect(sofar[0]).toBe("attempt-started");
      expect(sofar).toContain("approval-request");
      expect(sofar).not.toContain("verdict");
      await front.fleet.answer(request.id, { outcome: "deny", reason: "not today" });
      const again = await back.fleet.answer(request.id, { outcome: "approve" }).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(ApprovalNotPendingError);
      expect((await handle.result()).text).toBe("after the approval");
      // The fake CLI echoed the next line the worker wrote to it: the deny from the other host, with
      // its reason (codex carries a deny's reason to the model as an injected message).
      const echoed: string[] = [];
      for await (const { event } of handle.events()) {
        if (event.type === "process" && typeof event.text === "string" && event.text.includes('"echo"')) echoed.push(event.text);
      }
      expect(echoed).toHaveLength(1);
      expect(echoed[0]).toContain("not today");
    });

    it("a run submitted with an id of the host's choosing is found by it on another host; the id again is refused with FleetRunExistsError; approval() and info() read the state", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const back = await host(schema);
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const runId = randomUUID();
      const runOptions = fakeRun(fakeCodexSteps("after the approval", { ask: "npm test" }));
      const handle = await front.fleet.submit("run the tests", { runId, threadKey: "chosen", runOptions });
      expect(handle.id).toBe(runId);
      const twice = await back.fleet.submit("again", { runId: runId.toUpperCase() }).catch((e: unknown) => e);
      expect(twice).toBeInstanceOf(FleetRunExistsError);
      expect(isError(twice, ErrFleetRunExists)).toBe(true);
      const asked = await firstOf(back.fleet.handle(runId), "approval-request");
      const id = ((asked.event as RecordedAgentEvent).request as { id: string }).id;
      expect(await back.fleet.approval(id)).toEqual({
        id,
        runId,
        request: expect.objectContaining({ kind: "permission" }),
        status: "pending",
      });
      const waiting = await back.fleet.handle(runId).info();
      const stored: FleetEvent[] = [];
      for await (const e of back.fleet.handle(runId).events({ follow: false })) stored.push(e);
      expect(waiting).toEqual({
        id: runId,
        threadKey: "chosen",
        submittedAt: expect.any(String),
        settled: false,
        lastSequence: stored.at(-1)!.sequence,
      });
      expect(waiting.lastSequence).toBeGreaterThanOrEqual(asked.sequence);
      await back.fleet.answer(id, { outcome: "approve" });
      expect((await back.fleet.approval(id))?.status).toBe("answered");
      expect((await handle.result()).text).toBe("after the approval");
      const settled = await front.fleet.handle(runId).info();
      expect(settled.settled).toBe(true);
      const all: FleetEvent[] = [];
      for await (const e of front.fleet.handle(runId).events()) all.push(e);
      expect(all.at(-1)!.event.type).toBe("verdict");
      expect(settled.lastSequence).toBe(all.at(-1)!.sequence);
      expect(await front.fleet.approval("no-such-approval")).toBeUndefined();
      await expect(front.fleet.handle(randomUUID()).info()).rejects.toBeInstanceOf(FleetRunNotFoundError);
    });

    it("an approval-request event is logged only once its approval row exists, so a subscriber can answer what it sees", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      // Every approval row takes two seconds to write: the event must wait for it.
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(
          `CREATE FUNCTION ${schema}.slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(2); RETURN NEW; END $$`,
        );
        await admin.query(
          `CREATE TRIGGER slow_insert BEFORE INSERT ON ${schema}.adaptor_fleet_approvals FOR EACH ROW EXECUTE FUNCTION ${schema}.slow_insert()`,
        );
      } finally {
        await admin.end();
      }
      await front.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const runOptions = fakeRun(fakeCodexSteps("after the approval", { ask: "npm test" }));
      const handle = await front.fleet.submit("run the tests", { threadKey: "slow-row", runOptions });
      const asked = await firstOf(handle, "approval-request");
      const id = ((asked.event as RecordedAgentEvent).request as { id: string }).id;
      expect((await front.fleet.approval(id))?.status).toBe("pending");
      await front.fleet.answer(id, { outcome: "approve" });
      expect((await handle.result()).text).toBe("after the approval");
    });

    it("an approval left unanswered when its run ends reads as closed", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      await front.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const handle = await front.fleet.submit("ask", { runOptions: fakeRun(fakeCodexSteps("never", { ask: "npm test" })) });
      const asked = await firstOf(handle, "approval-request");
      const id = ((asked.event as RecordedAgentEvent).request as { id: string }).id;
      await handle.cancel();
      expect((await front.fleet.approval(id))?.status).toBe("closed");
    });

    it("answer() refuses an approval whose run ended unanswered (cancelled, approval timed out) with ApprovalNotPendingError closed, and it stays closed", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const back = await host(schema);
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }), { concurrency: 2 });
      const asking = (text: string, extra: Record<string, unknown> = {}) => ({
        ...fakeRun(fakeCodexSteps(text, { ask: "npm test" })),
        ...extra,
      });
      const idOf = async (handle: RunHandle) =>
        ((await firstOf(handle, "approval-request")).event as RecordedAgentEvent).request as { id: string };
      const cancelled = await front.fleet.submit("ask, then cancelled", { threadKey: "ends-cancelled", runOptions: asking("never") });
      const timedOut = await front.fleet.submit("ask, then time out", {
        threadKey: "ends-timed-out",
        runOptions: asking("never", { policy: { approvals: { timeoutMs: 1000 } } }),
      });
      const cancelledId = (await idOf(cancelled)).id;
      const timedOutId = (await idOf(timedOut)).id;
      await cancelled.cancel("changed my mind");
      await expect(cancelled.result()).rejects.toBeInstanceOf(FleetRunCancelledError);
      const timeout = await timedOut.result().catch((e: unknown) => e);
      expect(timeout).toBeInstanceOf(RunError);
      expect((timeout as RunError).reason).toBe("approval_timeout");
      for (const id of [cancelledId, timedOutId]) {
        expect((await front.fleet.approval(id))?.status).toBe("closed");
        const refused = await front.fleet.answer(id, { outcome: "approve" }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(ApprovalNotPendingError);
        expect((refused as ApprovalNotPendingError).status).toBe("closed");
        expect((await back.fleet.approval(id))?.status).toBe("closed");
      }
    });

    it("answer() racing the run's verdict being written waits for it and is refused as closed (the answer holds the run's row)", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      await front.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const handle = await front.fleet.submit("ask", {
        threadKey: "race-verdict",
        runOptions: fakeRun(fakeCodexSteps("x", { ask: "npm test" })),
      });
      const asked = await firstOf(handle, "approval-request");
      const id = ((asked.event as RecordedAgentEvent).request as { id: string }).id;
      const writer = new pg.Client({ connectionString: url });
      await writer.connect();
      closers.push(() => writer.end());
      const watcher = new pg.Client({ connectionString: url });
      await watcher.connect();
      closers.push(() => watcher.end());
      // A verdict being written (uncommitted, holding the run's row) when the answer arrives.
      await writer.query("BEGIN");
      await writer.query(
        `UPDATE "${schema}".adaptor_fleet_runs SET verdict = '{"kind":"cancelled"}'::jsonb, finished_at = now() WHERE id = $1`,
        [handle.id],
      );
      let done = false;
      const answering = front.fleet
        .answer(id, { outcome: "approve" })
        .then(
          () => "accepted",
          (e: unknown) => e,
        )
        .finally(() => (done = true));
      // The answer waits on the run's row lock until the verdict commits (read from outside the
      // writer's transaction, which would see one snapshot of pg_stat_activity).
      await until(async () => {
        const { rows } = await watcher.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
          [`%"${schema}".adaptor_fleet_approvals%`],
        );
        return done || rows[0]?.n === "1";
      }, "the answer to wait on the run's row");
      await writer.query("COMMIT");
      const refused = await answering;
      expect(refused).toBeInstanceOf(ApprovalNotPendingError);
      expect((refused as ApprovalNotPendingError).status).toBe("closed");
      expect((await front.fleet.approval(id))?.status).toBe("closed");
    });

    it("cancel from another host ends a running run's CLI and settles it as FleetRunCancelledError everywhere", async () => {
      const schema = freshSchema("fleet");
      const marker = `FLEET_CANCEL_${schema}`;
      const front = await host(schema);
      const back = await host(schema);
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const runOptions = { env: { ...fakeRun(fakeCodexSteps("never", { sleepMs: 120_000 })).env, [marker]: "1" } };
      const handle = await front.fleet.submit("a long one", { threadKey: "long", runOptions });
      await firstOf(front.fleet.handle(handle.id), "run-started");
      await until(() => processesWith(marker).length > 0, "the fake CLI");
      expect(await front.fleet.handle(handle.id).cancel("changed my mind")).toBe(true);
      const err = await back.fleet
        .handle(handle.id)
        .result()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FleetRunCancelledError);
      expect(isError(err, ErrFleetRunCancelled)).toBe(true);
      expect((err as FleetRunCancelledError).reason).toBe("changed my mind");
      await until(() => processesWith(marker).length === 0, "the cancelled run's CLI to end");
      expect(await front.store.resolve({ key: "long" })).toBeUndefined();
    });

    it("a cancel that arrives while a turn commits waits for the commit, settles nothing, and the verdict is the turn's Result", async () => {
      const schema = freshSchema("fleet");
      let reached!: () => void;
      const atCommit = new Promise<void>((resolve) => (reached = resolve));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const front = await host(schema);
      const back = await host(schema, {}, async (commit) => {
        reached();
        await gate;
        return commit();
      });
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const handle = await front.fleet.submit("commit me", { threadKey: "race", runOptions: fakeRun(fakeCodexSteps("committed")) });
      await atCommit;
      const cancelling = front.fleet.handle(handle.id).cancel();
      // The cancel's write waits on the run's row, held by the commit under way (or, without that
      // guard, it settles the run at once).
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      try {
        const blocked = async () => {
          const { rows } = await pool.query<{ n: string }>(
            "SELECT count(*)::text AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%adaptor_fleet_runs%'",
          );
          return rows[0]?.n !== "0";
        };
        let settled = false;
        void cancelling.then(() => (settled = true));
        for (let i = 0; i < 300 && !settled && !(await blocked()); i++) await new Promise((r) => setTimeout(r, 100));
      } finally {
        await pool.end();
      }
      release();
      expect(await cancelling).toBe(false);
      expect((await handle.result()).text).toBe("committed");
      expect((await front.store.resolve({ key: "race" }))?.revision).toBe(1);
    });

    it("a queued run cancelled never starts, and the next turn of its key runs", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const first = await front.fleet.submit("first", { threadKey: "q", runOptions: fakeRun(fakeCodexSteps("first done")) });
      const second = await front.fleet.submit("second", { threadKey: "q", runOptions: fakeRun(fakeCodexSteps("second")) });
      const third = await front.fleet.submit("third", {
        threadKey: "q",
        runOptions: fakeRun(fakeCodexSteps("third done", { resume: true })),
      });
      expect(await second.cancel()).toBe(true);
      await front.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore!, spawn: true }));
      expect((await first.result()).text).toBe("first done");
      expect((await third.result()).text).toBe("third done");
      await expect(second.result()).rejects.toBeInstanceOf(FleetRunCancelledError);
      const kinds: string[] = [];
      for await (const { event } of second.events()) kinds.push(event.type);
      expect(kinds).toEqual(["verdict"]);
    });

    it("verdicts keep their kind across hosts: RunError with its partial result, worker errors with code and sentinels", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const back = await host(schema);
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }), { concurrency: 2 });
      const early = await front.fleet.submit("exits early", { runOptions: fakeRun(fakeCodexSteps("x", { exitEarly: true })) });
      const missing = await front.fleet.submit("bad cwd", { runOptions: { cwd: "/nonexistent/fleet-test" } });
      const runError = await early.result().catch((e: unknown) => e);
      expect(runError).toBeInstanceOf(RunError);
      expect(isError(runError, ErrAgentFailed)).toBe(true);
      expect((runError as RunError).reason).toBe("agent_error");
      expect((runError as RunError).result.runId).toMatch(/^[0-9a-f-]{36}$/);
      const remote = await missing.result().catch((e: unknown) => e);
      expect(remote).toBeInstanceOf(FleetRemoteError);
      expect(isError(remote, ErrFleetRemote)).toBe(true);
      expect((remote as FleetRemoteError).code).toBe(ErrCode.NotFound);
      expect((remote as Error).message).toContain("/nonexistent/fleet-test");
    });

    it("a worker removes the values of its own credential variables from the verdict and events it writes", async () => {
      const secret = "worker-only-credential-7731";
      process.env.FLEET_TEST_SERVICE_TOKEN = secret;
      closers.push(async () => {
        delete process.env.FLEET_TEST_SERVICE_TOKEN;
      });
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const back = await host(schema);
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const handle = await front.fleet.submit("bad cwd", { runOptions: { cwd: `/nonexistent/${secret}` } });
      const remote = await handle.result().catch((e: unknown) => e);
      expect(remote).toBeInstanceOf(FleetRemoteError);
      expect((remote as Error).message).toContain("/nonexistent/[redacted]");
      // A run whose streamed text carries the value: its events and result too.
      const echoed = await front.fleet.submit("echo", { runOptions: fakeRun(fakeCodexSteps(`the key is ${secret}`)) });
      expect((await echoed.result()).text).toBe("the key is [redacted]");
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        // Everything the worker wrote for a run: its verdict and its events, as text.
        const written = async (runId: string) =>
          (
            await client.query<{ verdict: string; events: string | null }>(
              `SELECT r.verdict::text AS verdict, (SELECT string_agg(e.event::text, ' ') FROM ${schema}.adaptor_fleet_events e WHERE e.run_id = r.id) AS events
                 FROM ${schema}.adaptor_fleet_runs r WHERE r.id = $1`,
              [runId],
            )
          ).rows[0]!;
        const text = await written(echoed.id);
        expect(text.events).toContain("[redacted]");
        expect(`${text.events} ${text.verdict}`).not.toContain(secret);
        const failure = await written(handle.id);
        expect(failure.verdict).toContain("[redacted]");
        expect(`${failure.events} ${failure.verdict}`).not.toContain(secret);
      } finally {
        await client.end();
      }
    });

    it("a credential variable set after the worker started (a vault loader, a rotation) is removed from what it writes too", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const back = await host(schema);
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const secret = "rotated-credential-5521";
      process.env.FLEET_TEST_ROTATED_TOKEN = secret;
      closers.push(async () => {
        delete process.env.FLEET_TEST_ROTATED_TOKEN;
      });
      const echoed = await front.fleet.submit("echo", { runOptions: fakeRun(fakeCodexSteps(`the key is ${secret}`)) });
      expect((await echoed.result()).text).toBe("the key is [redacted]");
      const events: FleetEvent[] = [];
      for await (const e of front.fleet.handle(echoed.id).events({ follow: false })) events.push(e);
      expect(JSON.stringify(events)).not.toContain(secret);
    });

    it("metrics: attempts, wait time, run duration by outcome, and the queue depth read from PostgreSQL", async () => {
      const recorded: { name: string; value: number; attributes: unknown }[] = [];
      const gauges: ((result: ObservableResult) => Promise<void>)[] = [];
      const instrument = (name: string) => ({
        add: (value: number, attributes: unknown) => recorded.push({ name, value, attributes }),
        record: (value: number, attributes: unknown) => recorded.push({ name, value, attributes }),
        addCallback: (callback: (result: ObservableResult) => Promise<void>) => gauges.push(callback),
      });
      const meter = {
        createHistogram: instrument,
        createCounter: instrument,
        createObservableGauge: instrument,
      } as unknown as Meter;
      const schema = freshSchema("fleet");
      const front = await host(schema, { meter });
      await front.fleet.worker(({ threadStore }) => new Agent(fakeCodex("measured"), { threadStore: threadStore! }));
      await (await front.fleet.submit("measure me")).result();
      const byName = (name: string) => recorded.filter((r) => r.name === name);
      expect(byName("adaptor.fleet.attempts")).toEqual([
        { name: "adaptor.fleet.attempts", value: 1, attributes: { queue: "adaptor-fleet-runs", attempt: 1 } },
      ]);
      expect(byName("adaptor.fleet.run.wait")).toHaveLength(1);
      expect(byName("adaptor.fleet.run.wait")[0]!.value).toBeGreaterThanOrEqual(0);
      // The worker records the duration once its verdict write returns, which may be after a reader saw the verdict.
      await until(() => byName("adaptor.fleet.run.duration").length > 0, "the run duration metric");
      expect(byName("adaptor.fleet.run.duration").map((r) => r.attributes)).toEqual([{ queue: "adaptor-fleet-runs", outcome: "result" }]);
      const depth: number[] = [];
      await gauges[0]!({ observe: (value: number) => depth.push(value) } as ObservableResult);
      expect(depth).toEqual([0]);
    });

    it("prune removes finished runs past the retention with their events, and keeps unfinished ones", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const queued = await front.fleet.submit("nobody serves me yet");
      await front.fleet.worker(({ threadStore }) => new Agent(fakeCodex("done"), { threadStore: threadStore! }));
      await queued.result();
      const open = await front.fleet.submit("still queued", {
        threadKey: "busy",
        runOptions: fakeRun(fakeCodexSteps("x", { sleepMs: 60_000 })),
      });
      const waiting = await front.fleet.submit("behind it", { threadKey: "busy" });
      expect(await front.fleet.prune(60_000)).toBe(0);
      expect(await front.fleet.prune(0)).toBe(1);
      await expect(queued.result()).rejects.toThrow(/not found/);
      await open.cancel();
      await waiting.cancel();
    });

    it("a resume of one suspended turn submitted from two hosts at once is taken once, the other refused with ApprovalNotPendingError; a resume settled without a Result releases it", async () => {
      const schema = freshSchema("fleet_resume");
      const a = await host(schema);
      const b = await host(schema);
      const resume = (approvalId: string) => ({ approvalId, decision: { outcome: "approve" as const } });
      // No worker: the winners stay queued, holding their claims.
      for (let round = 0; round < 8; round++) {
        const approvalId = randomUUID();
        const threadKey = `resume-${round}`;
        const outcomes = await Promise.allSettled([
          a.fleet.submit("", { threadKey, resume: resume(approvalId) }),
          b.fleet.submit("", { threadKey, resume: resume(approvalId) }),
        ]);
        const won = outcomes.filter((o) => o.status === "fulfilled");
        const lost = outcomes.filter((o) => o.status === "rejected");
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]!.reason).toBeInstanceOf(ApprovalNotPendingError);
        expect(lost[0]!.reason).toMatchObject({ id: approvalId, status: "answered" });
        // The same approval id on another thread is another approval.
        await a.fleet.submit("", { threadKey: `${threadKey}-other`, resume: resume(approvalId) });
        if (round === 0) {
          // Cancelled (a verdict without a Result): the claim is released and a later resume is taken.
          await won[0]!.value.cancel("test");
          const again = await b.fleet.submit("", { threadKey, resume: resume(approvalId) });
          await expect(a.fleet.submit("", { threadKey, resume: resume(approvalId) })).rejects.toBeInstanceOf(ApprovalNotPendingError);
          expect((await again.info()).threadKey).toBe(threadKey);
        }
      }
      await expect(a.fleet.submit("", { resume: resume(randomUUID()) })).rejects.toThrow(TypeError);
    });

    it("submit past maxQueued refuses with FleetQueueFullError and stores nothing", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema, { maxQueued: 2 });
      await front.fleet.submit("a");
      await front.fleet.submit("b");
      const refused = await front.fleet.submit("c").catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(FleetQueueFullError);
      expect(isError(refused, ErrFleetQueueFull)).toBe(true);
      expect((refused as FleetQueueFullError).queued).toBe(2);
    });

    it("submit refuses what agent.run refuses before launch (empty prompt, bad key, unknown option or policy field, suspend outside a thread) and an image JSON cannot carry to another host, with its typed error, and writes nothing to PostgreSQL", async () => {
      const schema = freshSchema("fleet");
      const fleet = new Fleet({ connectionString: url, schema });
      closers.push(() => fleet.close());
      const refused = async (prompt: Parameters<Fleet["submit"]>[0], options: Parameters<Fleet["submit"]>[1]) =>
        fleet.submit(prompt, options).then(
          () => undefined,
          (e: unknown) => e,
        );
      for (const empty of ["", "  \n\t "]) {
        const error = await refused(empty, { threadKey: "k" });
        expect(error, JSON.stringify(empty)).toBeInstanceOf(InvalidOptionError);
        expect((error as InvalidOptionError).field).toBe("prompt");
      }
      expect(await refused("hi", { threadKey: "bad\u0000key" })).toBeInstanceOf(InvalidThreadKeyError);
      const option = await refused("hi", { runOptions: { modle: "x" } as never });
      expect(option).toBeInstanceOf(InvalidOptionError);
      expect((option as InvalidOptionError).field).toBe("modle");
      const policy = await refused("hi", { runOptions: { policy: { sandboxx: "read_only" } } as never });
      expect(policy).toBeInstanceOf(InvalidPolicyError);
      expect((policy as InvalidPolicyError).field).toBe("sandboxx");
      const value = await refused("hi", { runOptions: { policy: { approvals: { permission: "sometimes" } } } as never });
      expect((value as InvalidPolicyError).field).toBe("approvals.permission");
      const suspend = await refused("hi", { runOptions: { suspend: {} } });
      expect((suspend as InvalidOptionError).field).toBe("suspend");
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      for (const image of [
        { type: "image", data: png },
        { type: "image", path: "/tmp/picture.png" },
      ] as const) {
        const error = await refused(["look", image], {});
        expect(error, Object.keys(image)[1]).toBeInstanceOf(InvalidOptionError);
        expect(error).toMatchObject({ subject: "fleet submit", field: "prompt[1]" });
      }
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE $1", [
          `${schema}%`,
        ]);
        expect(rows).toEqual([]);
      } finally {
        await client.end();
      }
    });

    it("a fleet started on a database whose run queue was made without retry backoff updates the queue to back off; runs submitted from then on back off, jobs queued before keep what they were sent with", async () => {
      const schema = freshSchema("fleet");
      const queue = "adaptor-fleet-runs";
      // The queue as the fleet made it before retries backed off: retried at once, no backoff.
      const old = new PgBoss({ connectionString: url, schema: `${schema}_boss`, supervise: false, schedule: false });
      old.on("error", () => {});
      await old.start();
      await old.createQueue(queue, {
        policy: "key_strict_fifo",
        retryLimit: 3,
        retryDelay: 0,
        heartbeatSeconds: 10,
        expireInSeconds: 24 * 3600,
        deleteAfterSeconds: 7 * 24 * 3600,
        notify: false,
      });
      const before = await old.getQueue(queue);
      expect(before).toMatchObject({ retryDelay: 0, retryBackoff: false, retryLimit: 3 });
      expect(before?.retryDelayMax ?? null).toBeNull();
      const queuedBefore = await old.send(queue, { runId: randomUUID() }, { singletonKey: "run:before" });
      await old.stop({ graceful: false });

      const fleet = new Fleet({ connectionString: url, schema });
      closers.push(() => fleet.close());
      await fleet.start();
      const handle = await fleet.submit("after the upgrade");
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows: queues } = await client.query(
          `SELECT name, policy, retry_limit, retry_delay, retry_backoff, retry_delay_max, heartbeat_seconds FROM ${schema}_boss.queue WHERE name = ANY($1) ORDER BY name`,
          [[queue, `${queue}.format-2`]],
        );
        // The backoff is set; what the old queue had otherwise (its policy, attempts, heartbeat) is
        // kept. The queue of run format 2 (this version's runs) is made with the backoff.
        const backoff = {
          policy: "key_strict_fifo",
          retry_limit: 3,
          retry_delay: 1,
          retry_backoff: true,
          retry_delay_max: 30,
          heartbeat_seconds: 10,
        };
        expect(queues).toEqual([
          { name: queue, ...backoff },
          { name: `${queue}.format-2`, ...backoff },
        ]);
        const { rows: jobs } = await client.query(
          `SELECT name, id::text AS id, retry_delay, retry_backoff, retry_delay_max FROM ${schema}_boss.job WHERE name = ANY($1) ORDER BY created_on`,
          [[queue, `${queue}.format-2`]],
        );
        expect(jobs).toEqual([
          { name: queue, id: queuedBefore, retry_delay: 0, retry_backoff: false, retry_delay_max: null },
          { name: `${queue}.format-2`, id: handle.id, retry_delay: 1, retry_backoff: true, retry_delay_max: 30 },
        ]);
      } finally {
        await client.end();
      }
      // A second start (another host) finds the queue up to date and leaves it so.
      const again = new Fleet({ connectionString: url, schema });
      closers.push(() => again.close());
      await again.start();
    });

    it("a runId that is not a UUID is refused by submit and handle with InvalidOptionError naming runId, before the fleet starts or writes anything", async () => {
      const schema = freshSchema("fleet");
      const fleet = new Fleet({ connectionString: url, schema });
      closers.push(() => fleet.close());
      const refusals: [string, () => unknown][] = [
        ["submit not-a-uuid", () => fleet.submit("hi", { runId: "not-a-uuid" })],
        ["submit a number", () => fleet.submit("hi", { runId: 42 as never })],
        ["submit one digit short", () => fleet.submit("hi", { runId: "0190a6c8-7b3e-7c4d-8e5f-6a7b8c9d0e1" })],
        [
          "submit with a resume",
          () => fleet.submit("", { threadKey: "k", runId: "run-1", resume: { approvalId: "a1", decision: { outcome: "approve" } } }),
        ],
        ["handle not-a-uuid", () => fleet.handle("not-a-uuid")],
        ["handle empty", () => fleet.handle("")],
      ];
      for (const [name, call] of refusals) {
        let error: unknown;
        try {
          await call();
        } catch (e) {
          error = e;
        }
        expect(error, name).toBeInstanceOf(InvalidOptionError);
        expect((error as InvalidOptionError).subject, name).toBe(name.startsWith("submit") ? "fleet submit" : "fleet handle");
        expect((error as InvalidOptionError).field, name).toBe("runId");
        expect((error as InvalidOptionError).message, name).toContain("must be a UUID");
      }
      // An id in capitals is the same run: the handle reads it as submit stores it.
      expect(fleet.handle("0190A6C8-7B3E-7C4D-8E5F-6A7B8C9D0E1F").id).toBe("0190a6c8-7b3e-7c4d-8e5f-6a7b8c9d0e1f");
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT schema_name FROM information_schema.schemata WHERE schema_name = $1", [schema]);
        expect(rows).toEqual([]);
      } finally {
        await client.end();
      }
    });

    it("submit refuses a malformed resume (unknown keys in it or its decision), an unknown submit option and run options JSON cannot carry with InvalidOptionError naming the option, and writes no run", async () => {
      const schema = freshSchema("fleet");
      const fleet = new Fleet({ connectionString: url, schema });
      closers.push(() => fleet.close());
      await fleet.start();
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const resume = (extra: Record<string, unknown>) => ({ threadKey: "k", resume: { approvalId: "a1", ...extra } });
      const cases: [string, unknown, string, string][] = [
        ["outcome maybe", resume({ decision: { outcome: "maybe" } }), "fleet submit", "resume.decision"],
        ["decision string", resume({ decision: "approve" }), "fleet submit", "resume.decision"],
        ["decision empty", resume({ decision: {} }), "fleet submit", "resume.decision"],
        ["decision missing", resume({}), "fleet submit", "resume.decision"],
        ["updatedInput string", resume({ decision: { outcome: "approve", updatedInput: "notobject" } }), "fleet submit", "resume.decision"],
        ["deny without reason", resume({ decision: { outcome: "deny" } }), "fleet submit", "resume.decision"],
        ["extra resume field", resume({ decision: { outcome: "approve" }, evil: 1 }), "fleet submit", "resume.evil"],
        [
          "misspelt deny reason",
          resume({ decision: { outcome: "deny", reason: "no", reasn: "no" } }),
          "fleet submit",
          "resume.decision.reasn",
        ],
        ["choice on an approve", resume({ decision: { outcome: "approve", choice: "yes" } }), "fleet submit", "resume.decision.choice"],
        [
          "extra answer field",
          resume({ decision: { outcome: "answer", choice: "a", scope: "session" } }),
          "fleet submit",
          "resume.decision.scope",
        ],
        ["unknown submit option", { bogus: 1 }, "fleet submit", "bogus"],
        ["onApproval", { runOptions: { onApproval: () => {} } }, "run options", "onApproval"],
        ["nested function", { runOptions: { metadata: { hook: () => {} } } }, "run options", "metadata.hook"],
        ["bigint", { runOptions: { metadata: { x: 1n } } }, "run options", "metadata.x"],
        ["cyclic", { runOptions: { metadata: cyclic } }, "run options", "metadata.self"],
        ["signal", { runOptions: { signal: new AbortController().signal } }, "run options", "signal"],
      ];
      for (const [name, options, subject, field] of cases) {
        const error = await fleet.submit("", options as never).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, name).toBeInstanceOf(InvalidOptionError);
        expect((error as InvalidOptionError).subject, name).toBe(subject);
        expect((error as InvalidOptionError).field, name).toBe(field);
      }
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${schema}.adaptor_fleet_runs`);
        expect(rows).toEqual([{ n: 0 }]);
      } finally {
        await client.end();
      }
    });

    it("a thread store error while a worker starts a turn is the run's verdict with its cause chain, not attempts lost to a worker", async () => {
      const schema = freshSchema("fleet");
      // A thread store whose tables were never created: every attempt would fail the same way.
      const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
      const fleet = new Fleet({ connectionString: url, schema, threadStore: store });
      closers.push(async () => {
        await fleet.close();
        await store.close();
      });
      await fleet.start();
      await fleet.worker(({ threadStore }) => new Agent(fakeCodex("never runs"), { threadStore: threadStore! }));
      const handle = await fleet.submit("hello", { threadKey: "unmigrated" });
      const error = await handle.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FleetRemoteError);
      expect((error as FleetRemoteError).code).toBe(ErrCode.NotFound);
      expect((error as Error).cause).toBeDefined();
      const events: FleetEvent[] = [];
      for await (const e of fleet.handle(handle.id).events({ follow: false })) events.push(e);
      expect(events.map((e) => e.event.type)).toEqual(["verdict"]);
      expect(JSON.stringify(events[0]?.event)).toContain("NOT_FOUND");
    });

    it("a thread store error carrying a worker's credential value at turn start reaches the verdict without it", async () => {
      const secret = "worker-only-credential-8842";
      process.env.FLEET_TEST_SERVICE_TOKEN = secret;
      closers.push(async () => {
        delete process.env.FLEET_TEST_SERVICE_TOKEN;
      });
      const schema = freshSchema("fleet");
      const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
      await store.migrate();
      const view = fakeCliStoreView(store);
      const leaky = new Proxy(view, {
        get: (target, property) =>
          property === "resolve"
            ? () => Promise.reject(new Error(`cannot open the thread database with ${secret}`))
            : (Reflect.get(target, property, target) as unknown),
      });
      const fleet = new Fleet({ connectionString: url, schema, threadStore: leaky });
      closers.push(async () => {
        await fleet.close();
        await store.close();
      });
      await fleet.start();
      await fleet.worker(({ threadStore }) => new Agent(fakeCodex("never runs"), { threadStore: threadStore! }));
      const handle = await fleet.submit("hello", { threadKey: "leaky" });
      const error = await handle.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FleetRemoteError);
      expect((error as Error).message).toContain("cannot open the thread database with [redacted]");
      const events: FleetEvent[] = [];
      for await (const e of fleet.handle(handle.id).events({ follow: false })) events.push(e);
      expect(JSON.stringify(events)).not.toContain(secret);
    });

    it("a thread store that is unreachable when a worker starts a turn is attempted again after pg-boss's retry delay, not at once", async () => {
      const schema = freshSchema("fleet");
      const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
      await store.migrate();
      const calls: number[] = [];
      const view = fakeCliStoreView(store);
      const flaky = new Proxy(view, {
        get: (target, property) => {
          if (property !== "resolve") return Reflect.get(target, property, target) as unknown;
          return (request: Parameters<PostgresThreadStore["resolve"]>[0]) => {
            calls.push(Date.now());
            if (calls.length === 1)
              return Promise.reject(
                new DriverError({ op: "resolve", device: "postgres", code: ErrCode.ServiceUnavailable, cause: "connection refused" }),
              );
            return target.resolve(request);
          };
        },
      });
      const fleet = new Fleet({ connectionString: url, schema, threadStore: flaky });
      closers.push(async () => {
        await fleet.close();
        await store.close();
      });
      await fleet.start();
      await fleet.worker(({ threadStore }) => new Agent(fakeCodex("served on retry"), { threadStore: threadStore! }), { name: "w1" });
      const handle = await fleet.submit("hello", { threadKey: "flaky", runOptions: fakeRun(fakeCodexSteps("served on retry")) });
      expect((await handle.result()).text).toBe("served on retry");
      const started: FleetEvent[] = [];
      for await (const e of handle.events({ follow: false })) if (e.event.type === "attempt-started") started.push(e);
      expect(started.map((e) => e.event)).toEqual([{ type: "attempt-started", attempt: 2, worker: "w1" }]);
      // pg-boss's backoff starts at 1 s: the retry never comes at once.
      expect(calls.length).toBeGreaterThanOrEqual(2);
      expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(950);
    });
  });
}
