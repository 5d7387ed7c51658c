import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { Agent } from "adaptor";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet, type FleetOptions } from "@adaptor/fleet";
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
    it("runs queued on one slot start one after another, without waiting out a polling interval between them", async () => {
      const schema = freshSchema("dispatch");
      const fleet = await fleetHost(schema);
      await fleet.worker(({ threadStore }) => new Agent(fakeCodex("quick"), { threadStore: threadStore! }), { concurrency: 1 });
      const handles = [];
      for (let i = 0; i < 8; i++) handles.push(await fleet.submit(`run ${i}`));
      await Promise.all(handles.map((h) => h.result()));
      // Each run's start after the previous verdict, on PostgreSQL's clock: a slot that waited for
      // its next poll would leave gaps of up to the 2 s polling interval (7 gaps, 14 s at most).
      const { rows } = await admin.query<{ gap_ms: number }>(
        `SELECT (extract(epoch FROM started_at - lag(finished_at) OVER (ORDER BY started_at)) * 1000)::float8 AS gap_ms
         FROM "${schema}".adaptor_fleet_runs ORDER BY started_at`,
      );
      const gaps = rows.slice(1).map((r) => r.gap_ms);
      expect(gaps).toHaveLength(7);
      expect(gaps.reduce((a, b) => a + b, 0)).toBeLessThan(5_000);
    });

    it("a submission wakes one fetch on an idle host, not one per slot", async () => {
      const schema = freshSchema("dispatch");
      await admin.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      const front = await fleetHost(schema);
      const back = await fleetHost(schema);
      await back.worker(({ threadStore }) => new Agent(fakeCodex("one"), { threadStore: threadStore! }), { concurrency: 24 });
      // Each slot's pg-boss loop fetches once as it starts; wait for those.
      await until(async () => (await fetches(schema)) >= 24, "the slots' first fetches");
      const before = await fetches(schema);
      const handle = await front.submit("one run");
      expect((await handle.result()).text).toBe("one");
      // The woken slot, the next idle one its found job wakes, the refetch as the run ends, and the
      // host's backstop ticking while the run lasts; 24 slots each fetching would be 24 or more.
      expect((await fetches(schema)) - before).toBeLessThanOrEqual(8);
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
}
