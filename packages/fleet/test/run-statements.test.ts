import { afterAll, afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { Agent } from "adaptor";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet, type FleetEvent, type FleetOptions } from "@adaptor/fleet";
import { VERDICT_BACKSTOP_MS } from "../src/run/run-handle.js";
import { fakeCliStoreView, fakeCodex } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

/** `url` logging in as `role`. */
function asRole(url: string, role: string): string {
  const u = new URL(url);
  u.username = role;
  return u.toString();
}

/** The worker's read of a run's row (`FleetTables.run`), as pg_stat_statements normalizes it. */
const RUN_ROW_READ = /^SELECT id, thread_key, prompt, options, attempt, base, verdict, committed_at IS NOT NULL AS committed, resume FROM/;

if (!PG_URL) {
  skipWithoutServer("fleet statements per run");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(() => admin.end());

  async function fleetHost(schema: string, options: Partial<FleetOptions> = {}) {
    const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
    await store.migrate();
    const fleet = new Fleet({ connectionString: url, schema, threadStore: fakeCliStoreView(store), ...options });
    await fleet.start();
    closers.push(async () => {
      await fleet.close();
      await store.close();
    });
    return fleet;
  }

  /** A login role of its own for a test's worker host (pg_stat_statements counts per role). */
  async function role(schema: string, kind = "worker"): Promise<string> {
    const name = `fleet_${kind}_${schema.slice(-10)}`;
    await admin.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await admin.query(`CREATE ROLE ${name} SUPERUSER LOGIN`);
    return name;
  }

  /** Calls of the statements `role` ran that match `pattern` (pg_stat_statements). */
  async function callsOf(name: string, pattern: RegExp): Promise<number> {
    const { rows } = await admin.query<{ query: string; calls: string }>(
      `SELECT s.query, s.calls::text AS calls FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname = $1`,
      [name],
    );
    return rows.filter((r) => pattern.test(r.query.trim())).reduce((n, r) => n + Number(r.calls), 0);
  }

  /** When each run's first attempt started, and when its `attempt-started` event was recorded (PostgreSQL's clock, µs). */
  async function starts(schema: string): Promise<{ started: string; recorded: string }[]> {
    const { rows } = await admin.query<{ started: string; recorded: string }>(
      `SELECT r.started_at::text AS started, e.recorded_at::text AS recorded FROM "${schema}".adaptor_fleet_runs r
       JOIN "${schema}".adaptor_fleet_events e ON e.run_id = r.id AND e.seq = 1 ORDER BY r.submitted_at`,
    );
    return rows;
  }

  async function eventsOf(fleet: Fleet, id: string): Promise<FleetEvent[]> {
    const events: FleetEvent[] = [];
    for await (const e of fleet.handle(id).events()) events.push(e);
    return events;
  }

  describe("fleet statements per run", () => {
    it("a first attempt starts in one statement: the worker reads no run row, and attempt-started is written with the start", async () => {
      const schema = freshSchema("stmts");
      const worker = await role(schema);
      const front = await fleetHost(schema);
      const back = await fleetHost(schema, { connectionString: asRole(url, worker) });
      await back.worker(({ threadStore }) => new Agent(fakeCodex("one statement"), { threadStore: threadStore! }), {
        concurrency: 2,
        name: "w1",
      });
      const handles = [await front.submit("a plain run"), await front.submit("a thread's first turn", { threadKey: "k1" })];
      for (const h of handles) expect((await h.result()).text).toBe("one statement");
      for (const h of handles) {
        const events = await eventsOf(front, h.id);
        expect(events[0]?.event).toEqual({ type: "attempt-started", attempt: 1, worker: "w1" });
        expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
        expect(events.at(-1)?.event.type).toBe("verdict");
      }
      // The event and the attempt's start come from one statement: one transaction timestamp.
      const rows = await starts(schema);
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row.recorded).toBe(row.started);
      expect(await callsOf(worker, RUN_ROW_READ)).toBe(0);
    });

    it("a run queued by an earlier version (its job without the thread key) reads its row first and runs as before", async () => {
      const schema = freshSchema("stmts");
      const worker = await role(schema);
      const front = await fleetHost(schema);
      const handles = [await front.submit("a plain run"), await front.submit("a thread's first turn", { threadKey: "k1" })];
      // The job data an earlier version sent: the run id only.
      const { rowCount } = await admin.query(`UPDATE "${schema}_boss".job SET data = data - 'threadKey' WHERE data ? 'threadKey'`);
      expect(rowCount).toBe(2);
      const back = await fleetHost(schema, { connectionString: asRole(url, worker) });
      await back.worker(({ threadStore }) => new Agent(fakeCodex("as before"), { threadStore: threadStore! }), {
        concurrency: 2,
        name: "w1",
      });
      for (const h of handles) expect((await h.result()).text).toBe("as before");
      for (const h of handles)
        expect((await eventsOf(front, h.id))[0]?.event).toEqual({ type: "attempt-started", attempt: 1, worker: "w1" });
      expect(await callsOf(worker, RUN_ROW_READ)).toBe(2);
    });

    it("result() on another host reads the run's row when it starts waiting and once the verdict is announced, not on every event", async () => {
      const schema = freshSchema("stmts");
      const reader = await role(schema, "reader");
      const front = await fleetHost(schema, { connectionString: asRole(url, reader) });
      const handle = await front.submit("a run with events");
      const started = Date.now();
      const result = handle.result();
      // result() has read the row (no verdict yet) and waits before any worker runs.
      while ((await callsOf(reader, RUN_ROW_READ)) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const back = await fleetHost(schema);
      await back.worker(({ threadStore }) => new Agent(fakeCodex("read twice"), { threadStore: threadStore! }));
      expect((await result).text).toBe("read twice");
      const reads = await callsOf(reader, RUN_ROW_READ);
      // The attempt's start, its event appends and the verdict each notify the run's topic: a
      // reader woken by each would read the row once per notification (4 or more here).
      const events = await eventsOf(back, handle.id);
      expect(events.length).toBeGreaterThanOrEqual(5);
      // Besides the backstop read every VERDICT_BACKSTOP_MS while it waited.
      expect(reads).toBeLessThanOrEqual(2 + Math.floor((Date.now() - started) / VERDICT_BACKSTOP_MS));
    });
  });
}
