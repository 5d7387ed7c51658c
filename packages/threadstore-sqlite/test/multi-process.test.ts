import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import { checkHammerReports, type HammerReport } from "@adaptor/threadstore/testing";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "adaptor-sqlite-procs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));


/** Resolves `ready` at the worker's "ready" line and `done` with its last stdout line once it exits 0. */
function collect(child: ChildProcessWithoutNullStreams): { ready: Promise<void>; done: Promise<string> } {
  let out = "";
  let err = "";
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    if (out.startsWith("ready\n")) onReady();
  });
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const done = new Promise<string>((resolve, reject) =>
    child.on("close", (code) => {
      onReady();
      if (code === 0) resolve(out.trim().split("\n").at(-1) ?? "");
      else reject(new Error(`worker exited with ${code}: ${err}`));
    }),
  );
  return { ready, done };
}

const WORKERS = 4;
const CYCLES = 30;

describe("SqliteThreadStore shared by several processes", () => {
  it(`${WORKERS} processes × ${CYCLES} acquire/finalize cycles on one file: unique increasing tokens, no overlap, no lost update`, async () => {
    const path = join(dir, "shared.db");
    // Create the file first so the workers race on leases, not on schema creation.
    await new SqliteThreadStore({ path }).close();
    const workers = Array.from({ length: WORKERS }, (_, i) =>
      spawn(
        process.execPath,
        ["--conditions=source", "--import", "tsx", "test/support/hammer-worker.ts", path, `worker-${i}`, String(CYCLES), "hammered-key"],
        { cwd: packageDir, timeout: 60_000 },
      ),
    );
    const outputs = workers.map(collect);
    // Start line: every worker has opened the file before any begins, so they really contend.
    await Promise.all(outputs.map((o) => o.ready));
    for (const w of workers) w.stdin.end("go\n");
    const reports = (await Promise.all(outputs.map((o) => o.done))).map((text) => JSON.parse(text) as HammerReport);
    expect(reports.map((r) => [r.finalized, r.lost])).toEqual(reports.map(() => [CYCLES, 0]));
    const store = new SqliteThreadStore({ path });
    const record = await store.resolve({ key: "hammered-key" });
    await store.close();
    // Unique increasing tokens, no overlapping holds, no lost update (count = every finalize, in token order).
    expect(checkHammerReports(reports, record)).toEqual([]);
    expect((record?.checkpoint.data as { count: number }).count).toBe(WORKERS * CYCLES);
    expect(reports.reduce((n, r) => n + r.busy, 0)).toBeGreaterThan(0); // the workers really contended
  });
});
