import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import { checkHammerReports, runHammerWorkers } from "@adaptor/threadstore/testing";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "adaptor-sqlite-procs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WORKERS = 4;
const CYCLES = 30;

describe("SqliteThreadStore shared by several processes", () => {
  it(`${WORKERS} processes × ${CYCLES} acquire/finalize cycles on one file: unique increasing tokens, no overlap, no lost update`, async () => {
    const path = join(dir, "shared.db");
    // Create the file first so the workers race on leases, not on schema creation.
    const holder = new SqliteThreadStore({ path });
    const reports = await runHammerWorkers(
      Array.from({ length: WORKERS }, (_, i) => [
        process.execPath,
        "--conditions=source",
        "--import",
        "tsx",
        "test/support/hammer-worker.ts",
        path,
        `worker-${i}`,
        String(CYCLES),
        "hammered-key",
      ]),
      { cwd: packageDir, timeoutMs: 110_000, holder, key: "hammered-key" },
    );
    await holder.close();
    expect(reports.map((r) => [r.finalized, r.lost])).toEqual(reports.map(() => [CYCLES, 0]));
    const store = new SqliteThreadStore({ path });
    const record = await store.resolve({ key: "hammered-key" });
    await store.close();
    // Unique increasing tokens, no overlapping holds, no lost update (count = every finalize, in token order).
    expect(checkHammerReports(reports, record)).toEqual([]);
    expect((record?.checkpoint.data as { count: number }).count).toBe(WORKERS * CYCLES);
    expect(reports.every((r) => r.busy >= 1)).toBe(true); // every worker was refused while the holder held the lease
  }, 120_000); // four worker processes start slowly on a busy machine
});
