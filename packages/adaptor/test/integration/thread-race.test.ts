import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import type { ThreadStore } from "@adaptor/threadstore";

// Issue "Threads with leases" §6: worker PROCESSES race thread turns on one key through one
// durable store. No two driver runs may overlap, no checkpoint may be lost, and every turn that
// did not run lost with ErrThreadBusy.

const run = promisify(execFile);
const worker = join(import.meta.dirname, "race-worker.ts");
const pgUrl = process.env.ADAPTOR_TEST_PG_URL;
const dir = mkdtempSync(join(tmpdir(), "adaptor-race-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Summary {
  worker: string;
  ok: number;
  busy: number;
  other: string[];
}

async function race(kind: "postgres" | "sqlite", target: string, workers: number, turns: number, schema = "") {
  const log = join(dir, `${kind}.log`);
  writeFileSync(log, "");
  const outputs = await Promise.all(
    Array.from({ length: workers }, (_, i) =>
      run(process.execPath, ["--conditions=source", "--import", "tsx", worker, kind, target, String(i), String(turns), log, schema], {
        cwd: join(import.meta.dirname, "..", ".."),
        timeout: 120_000,
      }),
    ),
  );
  const summaries = outputs.map((o) => JSON.parse(o.stdout.trim().split("\n").at(-1)!) as Summary);
  const intervals = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { worker: string; start: number; end: number; before: number })
    .sort((a, b) => a.start - b.start);
  return { summaries, intervals };
}

function assertRace(result: Awaited<ReturnType<typeof race>>, workers: number, turns: number, finalCount: number | undefined) {
  const { summaries, intervals } = result;
  expect(summaries.flatMap((s) => s.other)).toEqual([]);
  const ok = summaries.reduce((n, s) => n + s.ok, 0);
  const busy = summaries.reduce((n, s) => n + s.busy, 0);
  expect(ok + busy).toBe(workers * turns);
  expect(ok).toBeGreaterThan(0);
  expect(intervals).toHaveLength(ok);
  for (let i = 1; i < intervals.length; i++) {
    expect(intervals[i]!.start).toBeGreaterThanOrEqual(intervals[i - 1]!.end);
  }
  // Each run started from the previous run's checkpoint: the counts form 0, 1, 2, ... with no gap.
  expect(intervals.map((r) => r.before)).toEqual(intervals.map((_, i) => i));
  expect(finalCount).toBe(ok);
}

async function finalCount(store: ThreadStore): Promise<number | undefined> {
  const record = await store.resolve({ key: "race" });
  await store.close();
  return record ? Number(record.checkpoint.resumeId.split(":")[1]) : undefined;
}

describe("thread race across worker processes", () => {
  it.skipIf(!pgUrl)(
    "8 processes × 50 turns on one key through PostgreSQL: no overlap, no lost checkpoint, losers get ErrThreadBusy",
    async () => {
      const schema = `race_${process.pid}`;
      const setup = new PostgresThreadStore({ connectionString: pgUrl!, schema });
      await setup.migrate();
      await setup.close();
      const result = await race("postgres", pgUrl!, 8, 50, schema);
      assertRace(result, 8, 50, await finalCount(new PostgresThreadStore({ connectionString: pgUrl!, schema })));
    },
    180_000,
  );

  it("4 processes × 50 turns on one SQLite file: no overlap, no lost checkpoint, losers get ErrThreadBusy", async () => {
    const file = join(dir, "race.db");
    new SqliteThreadStore({ path: file }).close();
    const result = await race("sqlite", file, 4, 50);
    assertRace(result, 4, 50, await finalCount(new SqliteThreadStore({ path: file })));
  }, 180_000);
});
