import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import pg from "pg";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { BusyError, segmentSummaryAfter, type ThreadRecordDraft } from "@adaptor/threadstore";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg-env.js";
import { checkHammerReports, runHammerWorkers } from "@adaptor/threadstore/testing";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

function record(id: string, key: string): ThreadRecordDraft {
  const t = new Date("2026-03-01T12:00:00.000Z");
  return {
    id,
    key,
    status: "active",
    driverType: "claude",
    identity: "u",
    fingerprint: "f",
    codec: "json/v1",
    checkpoint: { resumeId: `r-${id}` },
    createdAt: t,
    updatedAt: t,
  };
}

if (!PG_URL) {
  skipWithoutServer("PostgresThreadStore");
} else {
  const url = PG_URL;
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  const schemas: string[] = [];
  const schema = (prefix: string) => {
    const name = freshSchema(prefix);
    schemas.push(name);
    return name;
  };
  afterAll(async () => {
    for (const s of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await pool.end();
  });

  describe("PostgresThreadStore", () => {
    it("once its rows exist, a thread turn's lease cycle writes 3 WAL records: acquire and the record's write are plain updates, without an upsert's row lock", async () => {
      // pg_stat_statements counts each statement's WAL records (scripts/with-postgres.sh preloads it).
      await pool.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements").catch((cause: unknown) => {
        throw new Error("this test needs pg_stat_statements in shared_preload_libraries (scripts/with-postgres.sh sets it)", { cause });
      });
      const name = schema("wal");
      const store = new PostgresThreadStore({ pool, schema: name });
      await store.migrate();
      const turn = async (n: number): Promise<void> => {
        const lease = await store.acquireLease("wal-key", "worker", 30_000);
        await store.finalize({
          leases: [lease],
          record: { ...record("wal-record", "wal-key"), checkpoint: { resumeId: `r-${n}` } },
          releaseLeases: true,
        });
        await store.releaseLease(lease);
      };
      const counted = async (): Promise<{ calls: number; wal: number }> => {
        const { rows } = await pool.query<{ calls: string; wal: string }>(
          `SELECT coalesce(sum(calls), 0)::text AS calls, coalesce(sum(wal_records), 0)::text AS wal FROM pg_stat_statements
           WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query LIKE $1`,
          [`%"${name}".adaptor_thread%`],
        );
        return { calls: Number(rows[0]!.calls), wal: Number(rows[0]!.wal) };
      };
      await turn(0); // inserts the lease row and the record
      const before = await counted();
      for (let n = 1; n <= 5; n++) await turn(n);
      const after = await counted();
      // Two statements per turn (the release is answered by the store); one WAL record for the
      // acquire, two for the finalize (the lease's release and the record's update). The upsert
      // forms locked the conflicting row first, a WAL record of its own each: 5 per turn. A page
      // prune may add one now and then.
      expect(after.calls - before.calls).toBe(10);
      expect(after.wal - before.wal).toBeGreaterThanOrEqual(15);
      expect(after.wal - before.wal).toBeLessThan(20);
      expect((await store.resolve({ key: "wal-key" }))?.revision).toBe(6);
    });

    it("migrate() is idempotent, also when three stores run it at once", async () => {
      const name = schema("migrate");
      const stores = [0, 1, 2].map(() => new PostgresThreadStore({ pool, schema: name }));
      await Promise.all(stores.map((s) => s.migrate()));
      await stores[0]?.migrate();
      const tables = await pool.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
        [name],
      );
      expect(tables.rows.map((r) => r.table_name)).toEqual([
        "adaptor_pending_approvals",
        "adaptor_thread_leases",
        "adaptor_thread_session_segments",
        "adaptor_thread_sessions",
        "adaptor_threads",
      ]);
      const index = await pool.query<{ indexdef: string }>(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'adaptor_threads_one_active_per_key'",
        [name],
      );
      expect(index.rows[0]?.indexdef).toMatch(/UNIQUE INDEX .* \(key\) WHERE \(status = 'active'::text\)/);
    });

    it("without migrate() calls fail with DriverError NOT_FOUND naming the missing table, and work once migrated", async () => {
      const single = new pg.Pool({ connectionString: url, max: 1 }); // one connection: the failed prepare and the retry share it
      const store = new PostgresThreadStore({ pool: single, schema: schema("unmigrated") });
      try {
        const err = await store.acquireLease("t", "a", 1_000).catch((e: unknown) => e);
        expect(err).not.toBeInstanceOf(BusyError);
        expect(findError(err, DriverError)?.code).toBe(ErrCode.NotFound);
        expect((err as Error).message).toMatch(
          /^\[NOT_FOUND\] acquireLease: threadstore-postgres \(relation ".*adaptor_thread_leases" does not exist\)$/,
        );
        await store.migrate();
        expect((await store.acquireLease("t", "a", 1_000)).token).toBe(1);
      } finally {
        await single.end();
      }
    });

    it("works the same with preparedStatements: false (for poolers that cannot keep them)", async () => {
      const store = new PostgresThreadStore({ pool, schema: schema("unprepared"), preparedStatements: false });
      await store.migrate();
      const lease = await store.acquireLease("t", "owner-a", 60_000);
      await expect(store.acquireLease("t", "owner-b", 60_000)).rejects.toBeInstanceOf(BusyError);
      await store.finalize({ leases: [lease], record: record("rec-u", "t") });
      expect((await store.resolve({ key: "t" }))?.id).toBe("rec-u");
      await store.releaseLease(lease);
      expect((await store.acquireLease("t", "owner-b", 60_000)).token).toBe(lease.token + 1);
    });

    it("an unreachable server fails with DriverError SERVICE_UNAVAILABLE keeping the ECONNREFUSED cause", async () => {
      const store = new PostgresThreadStore({ connectionString: "postgres://postgres@127.0.0.1:1/postgres" });
      const err = await store.acquireLease("t", "a", 1_000).catch((e: unknown) => e);
      await store.close();
      const driverError = findError(err, DriverError);
      expect(driverError?.code).toBe(ErrCode.ServiceUnavailable);
      expect(driverError?.device).toBe("threadstore-postgres");
      expect((driverError?.cause as { code?: string }).code).toBe("ECONNREFUSED");
    });

    it("lease expiry is judged by the database clock: a process clock 25 years behind changes nothing", async () => {
      const store = new PostgresThreadStore({ pool, schema: schema("clock") });
      await store.migrate();
      const { rows } = await pool.query<{ now: Date }>("SELECT now() AS now");
      const dbNow = (rows[0] as { now: Date }).now.getTime();
      vi.useFakeTimers({ now: new Date("2001-01-01T00:00:00.000Z"), toFake: ["Date"] });
      try {
        expect(new Date().getFullYear()).toBe(2001);
        const lease = await store.acquireLease("t-clock", "owner-a", 60_000);
        expect(Math.abs(lease.expiresAt.getTime() - (dbNow + 60_000))).toBeLessThan(30_000); // a 25-year skew would show; a slow machine must not
        await expect(store.acquireLease("t-clock", "owner-b", 60_000)).rejects.toBeInstanceOf(BusyError);
        const renewed = await store.renewLease(lease, 120_000);
        expect(renewed.expiresAt.getTime()).toBeGreaterThan(dbNow + 100_000);
      } finally {
        vi.useRealTimers();
      }
    });

    it("migrate() upgrades tables from before record revisions: old records read as revision 1 and count on from there", async () => {
      const name = schema("upgrade");
      await pool.query(`CREATE SCHEMA "${name}"`);
      await pool.query(`CREATE TABLE "${name}".adaptor_threads (
        id text PRIMARY KEY, key text NOT NULL, status text NOT NULL CHECK (status IN ('active', 'archived')),
        driver_type text NOT NULL, identity text NOT NULL, fingerprint text NOT NULL, codec text NOT NULL,
        resume_id text NOT NULL, display_id text, data json, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`);
      await pool.query(
        `INSERT INTO "${name}".adaptor_threads VALUES ('old-id', 'old-key', 'active', 'claude', 'u', 'f', 'json/v1', 'r-old', NULL, NULL, now(), now())`,
      );
      const store = new PostgresThreadStore({ pool, schema: name });
      await store.migrate();
      await store.migrate();
      const before = await store.resolve({ key: "old-key" });
      expect(before?.revision).toBe(1);
      expect(before?.checkpoint).toStrictEqual({ resumeId: "r-old" });
      const { revision: _revision, ...draft } = before!;
      expect((await store.finalize({ leases: [], record: draft })).revision).toBe(2);
      expect((await store.resolve({ id: "old-id" }))?.revision).toBe(2);
    });

    it("acquire, finalize (with archive) and release are one statement each: no BEGIN/COMMIT, no checked-out client", async () => {
      const store0 = new PostgresThreadStore({ pool, schema: schema("one_stmt") });
      await store0.migrate();
      const sent: string[] = [];
      const counting = new Proxy(pool, {
        get(target, name, receiver) {
          if (name === "query") {
            return (config: { text?: string } | string, ...rest: unknown[]) => {
              sent.push(typeof config === "string" ? config : (config.text ?? ""));
              return (target.query as (...a: unknown[]) => unknown).call(target, config, ...rest);
            };
          }
          if (name === "connect") return () => Promise.reject(new Error("finalize must not check out a client"));
          return Reflect.get(target, name, receiver) as unknown;
        },
      });
      const store = new PostgresThreadStore({ pool: counting, schema: store0.schema });
      const lease = await store.acquireLease("k-one", "owner-a", 60_000);
      const first = await store.finalize({ leases: [lease], record: record("rec-1", "k-one") });
      const second = await store.finalize({ leases: [lease], record: record("rec-2", "k-one"), archiveId: "rec-1" });
      await store.releaseLease(lease);
      expect(sent).toHaveLength(4);
      expect(sent.some((text) => /^\s*(BEGIN|COMMIT|ROLLBACK)/i.test(text))).toBe(false);
      expect([first.revision, second.revision]).toEqual([1, 1]);
      expect((await store.resolve({ id: "rec-1" }))?.status).toBe("archived");
      expect((await store.resolve({ id: "rec-1" }))?.revision).toBe(2);
      expect((await store.resolve({ key: "k-one" }))?.id).toBe("rec-2");
      // A refused finalize is one statement too, and writes nothing.
      sent.length = 0;
      await expect(store.finalize({ leases: [lease], record: record("rec-3", "k-one"), archiveId: "rec-2" })).rejects.toThrow(/lease lost/);
      expect(sent).toHaveLength(1);
      expect((await store.resolve({ key: "k-one" }))?.id).toBe("rec-2");
    });

    it("stores in different schemas of one database do not see each other's records or leases", async () => {
      const a = new PostgresThreadStore({ pool, schema: schema("iso_a") });
      const b = new PostgresThreadStore({ pool, schema: schema("iso_b") });
      await a.migrate();
      await b.migrate();
      expect(a.schema).not.toBe(b.schema);
      await a.acquireLease("shared-key", "owner-a", 60_000);
      expect((await b.acquireLease("shared-key", "owner-b", 60_000)).owner).toBe("owner-b");
      await a.finalize({ leases: [], record: record("rec-a", "shared-key") });
      expect(await b.resolve({ key: "shared-key" })).toBeUndefined();
      expect((await a.resolve({ key: "shared-key" }))?.id).toBe("rec-a");
    });

    it("fencing tokens come from the database: two stores with separate pools continue one counter", async () => {
      const name = schema("tokens");
      const first = new PostgresThreadStore({ connectionString: url, schema: name });
      const second = new PostgresThreadStore({ connectionString: url, schema: name });
      await first.migrate();
      const tokens: number[] = [];
      for (let i = 0; i < 3; i++) {
        for (const store of [first, second]) {
          const lease = await store.acquireLease("t-shared", `owner-${i}`, 60_000);
          tokens.push(lease.token);
          await store.releaseLease(lease);
        }
      }
      await first.close();
      await second.close();
      expect(tokens).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it("4 processes × 25 acquire/finalize cycles through one database: unique increasing tokens, no overlap, no lost update", async () => {
      const name = schema("procs");
      const holder = new PostgresThreadStore({ pool, schema: name });
      await holder.migrate();
      const WORKERS = 4;
      const CYCLES = 25;
      const reports = await runHammerWorkers(
        Array.from({ length: WORKERS }, (_, i) => [
          process.execPath,
          "--conditions=source",
          "--import",
          "tsx",
          "test/support/hammer-worker.ts",
          url,
          name,
          `worker-${i}`,
          String(CYCLES),
          "hammered-key",
        ]),
        { cwd: packageDir, timeoutMs: 110_000, holder, key: "hammered-key" },
      );
      expect(reports.map((r) => [r.finalized, r.lost])).toEqual(reports.map(() => [CYCLES, 0]));
      const store = holder;
      const record = await store.resolve({ key: "hammered-key" });
      // Unique increasing tokens, no overlapping holds, no lost update.
      expect(checkHammerReports(reports, record)).toEqual([]);
      expect((record?.checkpoint.data as { count: number }).count).toBe(WORKERS * CYCLES);
      expect(reports.every((r) => r.busy >= 1)).toBe(true); // every worker was refused while the holder held the lease
    }, 120_000); // four worker processes start slowly on a busy machine

    it("summary is computed from the segment rows, not the session row's counters: a row deleted, shortened or two rows swapped show in it", async () => {
      const segments = ["aaaa", "bbbb", "cccc"].map((t) => Buffer.from(t));
      const honest = segmentSummaryAfter(undefined, { mode: "replace", segments });
      const damage = [
        "UPDATE {s}.adaptor_thread_session_segments SET data = substring(data FROM 1 FOR 3) WHERE seq = 1",
        // Two rows of one length swap places (their tags go with them).
        `UPDATE {s}.adaptor_thread_session_segments SET seq = -1 WHERE seq = 0;
         UPDATE {s}.adaptor_thread_session_segments SET seq = 0 WHERE seq = 1;
         UPDATE {s}.adaptor_thread_session_segments SET seq = 1 WHERE seq = -1;`,
        "DELETE FROM {s}.adaptor_thread_session_segments WHERE seq = 0",
      ];
      for (const [i, statement] of damage.entries()) {
        const name = schema(`summary${i}`);
        const store = new PostgresThreadStore({ pool, schema: name });
        await store.migrate();
        await store.finalize({
          leases: [],
          record: record("rec", "k"),
          sessionState: { mode: "replace", segments, manifest: {}, limitBytes: 100 },
        });
        expect(await store.sessionState!.summary!("rec")).toStrictEqual(honest);
        await pool.query(statement.replaceAll("{s}", `"${name}"`));
        expect({ i, counters: await store.sessionState!.read("rec") }).toMatchObject({ i, counters: { segments: 3, bytes: 12 } });
        expect({ i, same: await store.sessionState!.summary!("rec") }).not.toStrictEqual({ i, same: honest });
        await store.close();
      }
    });

    it("segments stored before segment tags (tag NULL after migrate adds the column) are tagged at the first summary, which then adds up", async () => {
      const name = schema("untagged");
      const store = new PostgresThreadStore({ pool, schema: name });
      await store.migrate();
      const segments = [Buffer.from("first"), Buffer.from("second!")];
      await store.finalize({
        leases: [],
        record: record("rec", "k"),
        sessionState: { mode: "replace", segments, manifest: {}, limitBytes: 100 },
      });
      await pool.query(`UPDATE "${name}".adaptor_thread_session_segments SET tag = NULL`);
      const expected = segmentSummaryAfter(undefined, { mode: "replace", segments });
      expect(await store.sessionState!.summary!("rec")).toStrictEqual(expected);
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${name}".adaptor_thread_session_segments WHERE tag IS NULL`);
      expect(rows[0].n).toBe(0);
      expect(await store.sessionState!.summary!("rec")).toStrictEqual(expected);
      // The tags the database computes are the kit's: one appended segment adds up the same way.
      const more = [Buffer.from("third, longer")];
      await store.finalize({
        leases: [],
        record: record("rec", "k"),
        sessionState: { mode: "append", segments: more, manifest: {}, limitBytes: 100 },
      });
      expect(await store.sessionState!.summary!("rec")).toStrictEqual(segmentSummaryAfter(expected, { mode: "append", segments: more }));
      await store.close();
    });
  });
}

describe("PostgresThreadStore options", () => {
  it("refuses a malformed connectionString at construction with a TypeError naming it, never quoting the password", () => {
    for (const connectionString of ["postgres://u:SuperSecretPw42@127.0.0.1:notaport/db", "postgres://u:SuperSecretPw42@[::1"]) {
      expect(() => new PostgresThreadStore({ connectionString })).toThrow(
        /^PostgresThreadStore: connectionString is not a valid connection URL/,
      );
      expect(() => new PostgresThreadStore({ connectionString })).not.toThrow(/SuperSecretPw42/);
    }
  });
});
