import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "adaptor-sqlite-procs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface WorkerReport {
  owner: string;
  tokens: number[];
  holds: [number, number][];
  busy: number;
  lost: number;
  finalized: number;
}

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
    const reports = (await Promise.all(outputs.map((o) => o.done))).map((text) => JSON.parse(text) as WorkerReport);

    // Each worker saw its own tokens strictly increase; across workers no token was handed out twice.
    for (const r of reports) {
      expect(r.finalized).toBe(CYCLES);
      for (let i = 1; i < r.tokens.length; i++) expect(r.tokens[i]).toBeGreaterThan(r.tokens[i - 1] as number);
    }
    const allTokens = reports.flatMap((r) => r.tokens);
    expect(new Set(allTokens).size).toBe(allTokens.length);

    // No two processes held the lease at the same time.
    const holds = reports.flatMap((r) => r.holds).sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < holds.length; i++) expect(holds[i]?.[0]).toBeGreaterThanOrEqual(holds[i - 1]?.[1] as number);

    // No lost update: the record counted every successful finalize, in token order.
    const store = new SqliteThreadStore({ path });
    const record = await store.resolve({ key: "hammered-key" });
    await store.close();
    const data = record?.checkpoint.data as { count: number; tokens: number[] };
    const lost = reports.reduce((n, r) => n + r.lost, 0);
    expect(lost).toBe(0);
    expect(data.count).toBe(WORKERS * CYCLES);
    expect(data.tokens).toHaveLength(WORKERS * CYCLES);
    for (let i = 1; i < data.tokens.length; i++) expect(data.tokens[i]).toBeGreaterThan(data.tokens[i - 1] as number);
    expect(reports.reduce((n, r) => n + r.busy, 0)).toBeGreaterThan(0); // the workers really contended
  });
});
