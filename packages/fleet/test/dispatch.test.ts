import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import pg from "pg";
import { Agent } from "adaptor";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet, type FleetEvent, type FleetOptions } from "@adaptor/fleet";
import { HostDispatch } from "../src/dispatch/host-dispatch.js";
import { VERDICT_BACKSTOP_MS } from "../src/run/run-handle.js";
import { BACKSTOP_SECONDS } from "../src/dispatch/host-dispatch.js";
import { fakeCliStoreView, fakeCodex } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { until } from "./support/processes.js";

/** `url` logging in as `role`. */
function asRole(url: string, role: string): string {
  const u = new URL(url);
  u.username = role;
  return u.toString();
}

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

/** Where the pgbouncer binary is, if installed (Debian's `pgbouncer` package). */
const PGBOUNCER = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((path) => existsSync(path));

/** The user pgbouncer runs as: itself when not root (pgbouncer refuses root), else `postgres`. */
function bouncerUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return {
    uid: Number(execFileSync("id", ["-u", "postgres"]).toString().trim()),
    gid: Number(execFileSync("id", ["-g", "postgres"]).toString().trim()),
  };
}

/** The worker's read of a run's row (`FleetTables.run`), as pg_stat_statements normalizes it. */
// The worker's and result()'s read of one run's row, whatever columns it lists.
const RUN_ROW_READ = /^SELECT id, thread_key, prompt\b[^;]* FROM \S+\.adaptor_fleet_runs WHERE id = \$1$/;

if (!PG_URL) {
  skipWithoutServer("fleet dispatch");
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

  /** Calls of pg-boss's fetch statement on `schema`'s queue tables (pg_stat_statements). */
  async function fetches(schema: string): Promise<number> {
    const { rows } = await admin.query<{ n: string }>(
      `SELECT coalesce(sum(calls), 0)::text AS n FROM pg_stat_statements WHERE query LIKE $1 AND query LIKE '%SKIP LOCKED%'`,
      [`%${schema}_boss.%`],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Statements `role` ran (pg_stat_statements). */
  async function statementsOf(role: string): Promise<string[]> {
    const { rows } = await admin.query<{ query: string }>(
      `SELECT s.query FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname = $1`,
      [role],
    );
    return rows.map((r) => r.query);
  }

  describe("fleet dispatch", () => {
    it("runs queued on one slot start one after another, each woken as the previous one ends, not by a polling interval", async () => {
      // No backstop while this test runs: a slot's own pg-boss loop polls every 300 s, so a queued
      // run that waited for a poll instead of being woken would outlast the test's timeout.
      const start = HostDispatch.prototype.start;
      const noBackstop = vi.spyOn(HostDispatch.prototype, "start");
      noBackstop.mockImplementation(function (this: HostDispatch, queue, slots, heartbeat, handle) {
        return start.call(this, queue, slots, heartbeat, handle, 3_600);
      });
      closers.push(async () => noBackstop.mockRestore());
      const schema = freshSchema("dispatch");
      const fleet = await fleetHost(schema);
      // Queued before the worker starts: no submission's announcement can wake the slot between runs.
      const handles = [];
      for (let i = 0; i < 8; i++) handles.push(await fleet.submit(`run ${i}`));
      await fleet.worker(({ threadStore }) => new Agent(fakeCodex("quick"), { threadStore: threadStore! }), { concurrency: 1 });
      for (const h of handles) expect((await h.result()).text).toBe("quick");
      expect(noBackstop).toHaveBeenCalled();
      // One slot: each run started at or after the previous one's verdict was stored.
      const { rows } = await admin.query<{ after_previous: boolean | null }>(
        `SELECT started_at >= lag(finished_at) OVER (ORDER BY started_at) AS after_previous
         FROM "${schema}".adaptor_fleet_runs ORDER BY started_at`,
      );
      expect(rows.map((r) => r.after_previous)).toEqual([null, true, true, true, true, true, true, true]);
    });

    it("a submission wakes one fetch on an idle host, not one per slot", async () => {
      const schema = freshSchema("dispatch");
      await admin.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      const front = await fleetHost(schema);
      const back = await fleetHost(schema);
      await back.worker(({ threadStore }) => new Agent(fakeCodex("one"), { threadStore: threadStore! }), { concurrency: 24 });
      // Each slot's pg-boss loop fetches once as it starts; wait for those.
      await until(async () => (await fetches(schema)) >= 24, "the slots' first fetches");
      const started = performance.now();
      const before = await fetches(schema);
      const handle = await front.submit("one run");
      expect((await handle.result()).text).toBe("one");
      const fetched = (await fetches(schema)) - before;
      // The woken slot, the next idle one its found job wakes, the refetch as the run ends, a few
      // more, and one fetch per tick of the host's backstop while the run lasted (on a busy machine
      // a run can last many ticks); 24 slots each fetching on the submission would be 24 more.
      const ticks = Math.ceil((performance.now() - started) / (BACKSTOP_SECONDS * 1000));
      expect(fetched).toBeLessThanOrEqual(8 + ticks);
    });

    it("with listenConnectionString, LISTEN runs only there and the pooled connection runs no LISTEN", async () => {
      const schema = freshSchema("dispatch");
      await admin.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      const pooled = `fleet_pool_${schema.slice(-10)}`;
      const listening = `fleet_listen_${schema.slice(-10)}`;
      for (const role of [pooled, listening]) await admin.query(`CREATE ROLE ${role} SUPERUSER LOGIN`);
      const fleet = await fleetHost(schema, {
        connectionString: asRole(url, pooled),
        listenConnectionString: asRole(url, listening),
      });
      await fleet.worker(({ threadStore }) => new Agent(fakeCodex("pooled"), { threadStore: threadStore! }), { concurrency: 2 });
      const handle = await fleet.submit("through the pool", { threadKey: "k1" });
      const types: string[] = [];
      for await (const { event } of handle.events()) types.push(event.type);
      expect(types.at(-1)).toBe("verdict");
      expect((await handle.result()).text).toBe("pooled");
      const pool = await statementsOf(pooled);
      expect(pool.length).toBeGreaterThan(10);
      expect(pool.filter((q) => /^\s*(UN)?LISTEN\b/i.test(q))).toEqual([]);
      expect(pool.filter((q) => /pg_advisory_lock|pg_try_advisory_lock\(/i.test(q))).toEqual([]);
      expect((await statementsOf(listening)).filter((q) => /^\s*LISTEN\b/i.test(q)).length).toBeGreaterThan(0);
    });

    const bouncerIt = PGBOUNCER ? it : it.skip;
    bouncerIt("works with its pooled connection through PgBouncer in transaction mode and LISTEN on a direct one", async () => {
      const schema = freshSchema("dispatch");
      const dir = mkdtempSync(join(tmpdir(), "adaptor-pgbouncer-"));
      const server = new URL(url);
      const port = await freePort();
      writeFileSync(
        join(dir, "pgbouncer.ini"),
        [
          "[databases]",
          `* = host=${server.hostname} port=${server.port} user=${decodeURIComponent(server.username) || "postgres"}`,
          "[pgbouncer]",
          "listen_addr = 127.0.0.1",
          `listen_port = ${port}`,
          `unix_socket_dir = ${dir}`,
          "auth_type = any",
          "pool_mode = transaction",
          "max_client_conn = 200",
          "default_pool_size = 4",
          "ignore_startup_parameters = extra_float_digits,options",
          "",
        ].join("\n"),
      );
      const user = bouncerUser();
      if (user) chownSync(dir, user.uid, user.gid);
      const bouncer: ChildProcess = spawn(PGBOUNCER!, [join(dir, "pgbouncer.ini")], { stdio: "ignore", ...user });
      closers.push(async () => {
        if (bouncer.exitCode === null) {
          const exited = new Promise((resolve) => bouncer.once("exit", resolve));
          bouncer.kill("SIGTERM");
          await exited;
        }
        rmSync(dir, { recursive: true, force: true });
      });
      const viaBouncer = new URL(url);
      viaBouncer.port = String(port);
      // Wait until the bouncer answers (it starts in well under a second; 20 s at most).
      for (let i = 0; ; i++) {
        const probe = new pg.Client({ connectionString: viaBouncer.toString() });
        try {
          await probe.connect();
          await probe.query("SELECT 1");
          await probe.end();
          break;
        } catch (error) {
          await probe.end().catch(() => {});
          if (i >= 40) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
      const fleet = await fleetHost(schema, { connectionString: viaBouncer.toString(), listenConnectionString: url });
      await fleet.worker(({ threadStore }) => new Agent(fakeCodex("bounced"), { threadStore: threadStore! }), { concurrency: 3 });
      const handles = [];
      handles.push(await fleet.submit("a thread's first turn", { threadKey: "kb" }));
      for (let i = 0; i < 3; i++) handles.push(await fleet.submit(`free run ${i}`));
      for (const h of handles) expect((await h.result()).text).toBe("bounced");
      const types: string[] = [];
      for await (const { event } of handles[0]!.events()) types.push(event.type);
      expect(types[0]).toBe("attempt-started");
      expect(types.at(-1)).toBe("verdict");
    });
  });

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
