import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryThreadStore, type ThreadRecordDraft, type ThreadStore } from "@adaptor/threadstore";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import pg from "pg";
import { fmt, measureRate, type Benchmark, type Figure, type Rate } from "./harness.js";

/** Timed window per store, ms. Four windows plus warm-ups keep the benchmark near 10 s. */
const DURATION_MS = 2_000;

/**
 * Lease cycles per second for each thread store: `acquireLease` → `finalize` (upsert one record
 * under the lease) → `releaseLease`, one caller, back to back. PostgreSQL (when
 * ADAPTOR_TEST_PG_URL is set, e.g. under scripts/with-postgres.sh) is compared with a baseline
 * measured in the same run: two bare `SELECT 1` round trips through the same kind of pool.
 */
export const threadStoreLeases: Benchmark = {
  name: "thread store: lease acquire + finalize + release",
  async run(): Promise<Figure[]> {
    const rates = new Map<string, Rate>();

    rates.set("memory", await cycles(new MemoryThreadStore()));

    const dir = mkdtempSync(join(tmpdir(), "adaptor-bench-"));
    try {
      const sqlite = new SqliteThreadStore({ path: join(dir, "bench.db") });
      rates.set("sqlite (WAL, temp file)", await cycles(sqlite));
      await sqlite.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const url = process.env.ADAPTOR_TEST_PG_URL;
    let baseline: Rate | undefined;
    let settings = "";
    if (url) {
      const pool = new pg.Pool({ connectionString: url });
      const schema = `bench_${randomBytes(5).toString("hex")}`;
      try {
        const shown = await pool.query<{ s: string; f: string }>("SELECT current_setting('synchronous_commit') AS s, current_setting('fsync') AS f");
        settings = `server synchronous_commit=${shown.rows[0]?.s}, fsync=${shown.rows[0]?.f}`;
        baseline = await measureRate(async () => {
          await pool.query("SELECT 1");
          await pool.query("SELECT 1");
        }, { durationMs: DURATION_MS });
        const store = new PostgresThreadStore({ pool, schema });
        await store.migrate();
        rates.set("postgres", await cycles(store));
      } finally {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
        await pool.end();
      }
    } else {
      process.stderr.write("bench: ADAPTOR_TEST_PG_URL not set, skipping PostgreSQL (run under scripts/with-postgres.sh)\n");
    }

    const figures: Figure[] = [];
    if (baseline) {
      figures.push({ label: "baseline: 2 × SELECT 1 (postgres)", value: baseline.perSecond, unit: "cycles/s", note: `${fmt(baseline.meanUs)} µs/cycle; ${settings}` });
    }
    for (const [store, rate] of rates) {
      const ratio = baseline ? `, ${fmt(rate.meanUs / baseline.meanUs, 2)}× the baseline's time` : "";
      figures.push({ label: `${store}`, value: rate.perSecond, unit: "cycles/s", note: `${fmt(rate.meanUs)} µs/cycle${ratio}` });
    }
    return figures;
  },
};

/** Measures acquire → finalize → release cycles on one target of `store`. */
async function cycles(store: ThreadStore): Promise<Rate> {
  const base: Omit<ThreadRecordDraft, "checkpoint" | "updatedAt"> = {
    id: "bench-record",
    key: "bench-key",
    status: "active",
    driverType: "bench",
    identity: "bench",
    fingerprint: "fp",
    codec: "json/v1",
    createdAt: new Date(),
  };
  return measureRate(async (i) => {
    const lease = await store.acquireLease("bench-key", "bench-owner", 30_000);
    await store.finalize({ leases: [lease], record: { ...base, checkpoint: { resumeId: `resume-${i}`, data: { turn: i } }, updatedAt: new Date() } });
    await store.releaseLease(lease);
  }, { durationMs: DURATION_MS });
}
