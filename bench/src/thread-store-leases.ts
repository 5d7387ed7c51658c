import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryThreadStore, type ThreadRecordDraft, type ThreadStore } from "@adaptor/threadstore";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import pg from "pg";
import { fmt, measureRate, type Benchmark, type Figure } from "./harness.js";

/** Timed window of one measurement (per step when steps are interleaved), ms. */
const WINDOW_MS = 700;
/** Calls of one step before the next step's batch (see {@link interleaved}). */
const BATCH = 10;
/** Rounds per store; each figure is the median of the rounds (min–max shown beside it). */
const ROUNDS = 5;
/** Concurrent workers of the PostgreSQL figures: each runs the step on its own row, all at once. */
const WORKERS = [1, 8];

/**
 * Lease cycles for each thread store: `acquireLease` → `finalize` (upsert one record under the
 * lease) → `releaseLease`, one caller, back to back, in two forms measured in alternating rounds:
 * as a thread turn runs it (finalize with `releaseLeases`, so the store releases the lease in the
 * same write and answers the following `releaseLease` without one) and with the release as a write
 * of its own. PostgreSQL (when ADAPTOR_TEST_PG_URL is set, e.g. under scripts/with-postgres.sh) is
 * compared with two baselines measured in the same run: two bare `SELECT 1` round trips and two
 * bare one-row `UPDATE`s through the same pool, each with 1 and 8 workers at once (every worker
 * on its own thread key or row). Within each round the baselines and both cycle forms run in alternating batches of
 * {@link BATCH}, so a busy machine slows them alike; each round gives one ratio, and the figure is
 * the median of {@link ROUNDS}.
 * `pnpm bench lease` runs only this benchmark.
 */
export const threadStoreLeases: Benchmark = {
  name: "thread store: lease acquire + finalize + release (memory, sqlite, postgres)",
  async run(): Promise<Figure[]> {
    const figures: Figure[] = [];
    const line = (label: string, us: number[], extra = ""): Figure => ({
      label,
      value: 1e6 / median(us),
      unit: "cycles/s",
      note: `median ${fmt(median(us))} µs/cycle, min–max ${fmt(Math.min(...us))}–${fmt(Math.max(...us))} over ${us.length} rounds${extra}`,
    });
    const both = async (name: string, store: ThreadStore): Promise<void> => {
      const releasing: number[] = [];
      const apart: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const [a, b] = await interleaved([cycle(store, name, true), cycle(store, name, false)]);
        releasing.push(a!);
        apart.push(b!);
      }
      figures.push(line(`${name}, finalize releases`, releasing), line(`${name}, release apart`, apart));
    };

    await both("memory", new MemoryThreadStore());

    const dir = mkdtempSync(join(tmpdir(), "adaptor-bench-"));
    try {
      const sqlite = new SqliteThreadStore({ path: join(dir, "bench.db") });
      await both("sqlite (WAL, temp file)", sqlite);
      await sqlite.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const url = process.env.ADAPTOR_TEST_PG_URL;
    if (!url) {
      process.stderr.write("bench: ADAPTOR_TEST_PG_URL not set, skipping PostgreSQL (run under scripts/with-postgres.sh)\n");
      return figures;
    }
    const pool = new pg.Pool({ connectionString: url });
    const schema = `bench_${randomBytes(5).toString("hex")}`;
    try {
      const shown = await pool.query<{ s: string; f: string }>(
        "SELECT current_setting('synchronous_commit') AS s, current_setting('fsync') AS f",
      );
      const store = new PostgresThreadStore({ pool, schema });
      await store.migrate();
      await pool.query(`CREATE TABLE "${schema}".bench_counter (id int PRIMARY KEY, n bigint NOT NULL)`);
      await pool.query(`INSERT INTO "${schema}".bench_counter SELECT g, 0 FROM generate_series(0, ${Math.max(...WORKERS) - 1}) g`);
      const forms = { releasing: true, apart: false } as const;
      for (const workers of WORKERS) {
        const selects: number[] = [];
        const updates: number[] = [];
        const cycles = { releasing: [] as number[], apart: [] as number[] };
        const ops = { releasing: [] as Operations[], apart: [] as Operations[] };
        for (let r = 0; r < ROUNDS; r++) {
          const [select, update, releasing, apart] = await interleaved([
            parallel(workers, () => roundTrips(pool)),
            parallel(workers, (w) => bareUpdates(pool, schema, w)),
            parallel(workers, (w) => cycle(store, `postgres-${workers}-${w}`, true)),
            parallel(workers, (w) => cycle(store, `postgres-${workers}-${w}`, false)),
          ]);
          selects.push(select!);
          updates.push(update!);
          cycles.releasing.push(releasing!);
          cycles.apart.push(apart!);
          if (workers === 1)
            for (const [form, release] of Object.entries(forms) as [keyof typeof forms, boolean][])
              ops[form].push(await perOperation(store, release));
        }
        const each = workers === 1 ? "" : ` (${workers} workers at once, µs per step of all of them)`;
        figures.push(
          line(
            `baseline: 2 × SELECT 1 (postgres, ${workers} worker${workers === 1 ? "" : "s"})`,
            selects,
            `${each}; server synchronous_commit=${shown.rows[0]?.s}, fsync=${shown.rows[0]?.f}`,
          ),
          line(`baseline: 2 × bare one-row UPDATE (postgres, ${workers} worker${workers === 1 ? "" : "s"})`, updates, each),
        );
        for (const form of Object.keys(forms) as (keyof typeof forms)[]) {
          const bySelect = cycles[form].map((us, i) => us / selects[i]!);
          const byUpdate = cycles[form].map((us, i) => us / updates[i]!);
          figures.push({
            label: `postgres, ${form === "releasing" ? "finalize releases" : "release apart"}, ${workers} worker${workers === 1 ? "" : "s"}`,
            value: 1e6 / median(cycles[form]),
            unit: "cycles/s",
            note: `median ${fmt(median(cycles[form]))} µs/cycle; ${fmt(median(bySelect), 2)}× 2 × SELECT 1 (${fmt(Math.min(...bySelect), 2)}–${fmt(Math.max(...bySelect), 2)}), ${fmt(median(byUpdate), 2)}× 2 × UPDATE (${fmt(Math.min(...byUpdate), 2)}–${fmt(Math.max(...byUpdate), 2)}${workers === 8 ? "; goal ≤ 2×" : ""}), medians of ${ROUNDS} rounds`,
          });
          if (workers !== 1) continue;
          for (const name of ["acquire", "finalize", "release"] as const) {
            const us = ops[form].map((o) => o[name]);
            const share = us.map((u, i) => u / (selects[i]! / 2));
            figures.push({
              label: `  ${name}`,
              value: 1e6 / median(us),
              unit: "ops/s",
              note: `median ${fmt(median(us))} µs; ${fmt(median(share), 2)}× one SELECT 1 round trip (min–max ${fmt(Math.min(...share), 2)}–${fmt(Math.max(...share), 2)})`,
            });
          }
        }
      }
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
      await pool.end();
    }
    return figures;
  },
};

/** µs of each operation of one cycle. */
interface Operations {
  readonly acquire: number;
  readonly finalize: number;
  readonly release: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Two bare `SELECT 1` round trips through `pool`. */
function roundTrips(pool: pg.Pool): Step {
  return async () => {
    await pool.query("SELECT 1");
    await pool.query("SELECT 1");
  };
}

/** Two bare one-row `UPDATE`s (each its own committed write, parameters as the store sends them) on worker `w`'s row. */
function bareUpdates(pool: pg.Pool, schema: string, w: number): Step {
  const text = `UPDATE "${schema}".bench_counter SET n = n + 1 WHERE id = $1`;
  return async () => {
    await pool.query({ name: `bench-update-${schema}`, text, values: [w] });
    await pool.query({ name: `bench-update-${schema}`, text, values: [w] });
  };
}

/** `workers` copies of a step (`make(w)` for worker `w`) run at once; one call ends when all did. */
function parallel(workers: number, make: (w: number) => Step): Step {
  const steps = Array.from({ length: workers }, (_, w) => make(w));
  return async (i) => {
    await Promise.all(steps.map((step) => step(i)));
  };
}

/** One step of a measurement (`i` counts the step's calls). */
type Step = (i: number) => Promise<void>;

/**
 * Runs `steps` in alternating batches of {@link BATCH} calls each for {@link WINDOW_MS} (after a
 * warm-up of every step), so a busy machine slows each alike within the round; returns µs per call
 * of each step: the median over its batches, so a batch that a load spike hit (another job taking
 * the CPU for a few milliseconds) moves the figure no more than any other batch.
 */
async function interleaved(steps: readonly Step[]): Promise<number[]> {
  const batches = steps.map((): number[] => []);
  let calls = 0;
  for (const step of steps) await measureRate(step, { durationMs: 0, warmupMs: 100, minIterations: 1 });
  const end = performance.now() + WINDOW_MS * steps.length;
  while (performance.now() < end || calls < 20) {
    for (const [k, step] of steps.entries()) {
      const t0 = performance.now();
      for (let b = 0; b < BATCH; b++) await step(calls + b);
      batches[k]!.push(((performance.now() - t0) * 1e3) / BATCH);
    }
    calls += BATCH;
  }
  return batches.map(median);
}

function draft(key: string): Omit<ThreadRecordDraft, "checkpoint" | "updatedAt"> {
  return {
    id: `bench-record-${key}`,
    key,
    status: "active",
    driverType: "bench",
    identity: "bench",
    fingerprint: "fp",
    codec: "json/v1",
    createdAt: new Date(),
  };
}

/** One acquire → finalize → release cycle on one target of `store`; `release`: finalize releases the lease. */
function cycle(store: ThreadStore, key: string, release: boolean): Step {
  const base = draft(`bench-key-${key}-${release ? "releasing" : "apart"}`);
  return async (i) => {
    const lease = await store.acquireLease(base.key, "bench-owner", 30_000);
    await store.finalize({
      leases: [lease],
      record: { ...base, checkpoint: { resumeId: `resume-${i}`, data: { turn: i } }, updatedAt: new Date() },
      releaseLeases: release,
    });
    await store.releaseLease(lease);
  };
}

/** µs of each operation of the cycle, timed apart: the median over the cycles of a window. */
async function perOperation(store: ThreadStore, release: boolean): Promise<Operations> {
  const base = draft("bench-key-ops");
  const spent = { acquire: [] as number[], finalize: [] as number[], release: [] as number[] };
  let n = 0;
  const end = performance.now() + WINDOW_MS;
  while (performance.now() < end || n < 20) {
    const t0 = performance.now();
    const lease = await store.acquireLease(base.key, "bench-owner", 30_000);
    const t1 = performance.now();
    await store.finalize({
      leases: [lease],
      record: { ...base, checkpoint: { resumeId: `resume-${n}` }, updatedAt: new Date() },
      releaseLeases: release,
    });
    const t2 = performance.now();
    await store.releaseLease(lease);
    const t3 = performance.now();
    spent.acquire.push((t1 - t0) * 1e3);
    spent.finalize.push((t2 - t1) * 1e3);
    spent.release.push((t3 - t2) * 1e3);
    n++;
  }
  return { acquire: median(spent.acquire), finalize: median(spent.finalize), release: median(spent.release) };
}
