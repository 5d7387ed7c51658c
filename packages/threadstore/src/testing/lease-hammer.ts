import { spawn } from "node:child_process";
import { BusyError } from "../errors/busy-error.js";
import { LeaseLostError } from "../errors/lease-lost-error.js";
import type { ThreadRecord, ThreadRecordDraft } from "../contract/thread-record.js";
import type { ThreadStore } from "../contract/thread-store.js";

/** What one {@link leaseHammer} worker saw; check many of them with {@link checkHammerReports}. */
export interface HammerReport {
  /** The worker's lease owner name. */
  readonly owner: string;
  /** Fencing tokens this worker was granted, in order. */
  readonly tokens: number[];
  /**
   * [start, end] of each lease it held, in ms of the system's monotonic clock (`process.hrtime`),
   * which every process on one machine shares, so holds compare across processes. (Node's
   * `performance.timeOrigin` is fixed per process within about a millisecond, too coarse for holds
   * handed over at once.)
   */
  readonly holds: [number, number][];
  /** Acquires refused with BusyError. */
  readonly busy: number;
  /** Finalizes refused with LeaseLostError. */
  readonly lost: number;
  /** Number of successful finalizes by this worker. */
  readonly finalized: number;
}

/**
 * One worker of a multi-process store test: loops acquire → resolve → finalize(count + 1) →
 * release on `key` until it has finalized `cycles` times, backing off 1–5 ms after a busy lease
 * (spinning starves the holder on small machines). Run it in several processes against one
 * database, then pass the reports to {@link checkHammerReports}. `onFirstBusy` is called once, on
 * the first acquire refused with BusyError.
 */
export async function leaseHammer(
  store: ThreadStore,
  {
    owner,
    cycles,
    key,
    ttlMs = 10_000,
    onFirstBusy,
  }: { owner: string; cycles: number; key: string; ttlMs?: number; onFirstBusy?: () => void },
): Promise<HammerReport> {
  const monotonicNow = (): number => Number(process.hrtime.bigint()) / 1e6;
  const report = { owner, tokens: [] as number[], holds: [] as [number, number][], busy: 0, lost: 0, finalized: 0 };
  while (report.finalized < cycles) {
    let lease;
    try {
      lease = await store.acquireLease(key, owner, ttlMs);
    } catch (err) {
      if (!(err instanceof BusyError)) throw err;
      if (report.busy++ === 0) onFirstBusy?.();
      await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 4));
      continue;
    }
    const start = monotonicNow();
    report.tokens.push(lease.token);
    const current = await store.resolve({ key });
    const data = (current?.checkpoint.data ?? { count: 0, tokens: [] }) as { count: number; tokens: number[] };
    const now = new Date();
    const next: ThreadRecordDraft = {
      id: "hammered-record",
      key,
      status: "active",
      driverType: "test",
      identity: "hammer",
      fingerprint: "fp",
      codec: "json/v1",
      checkpoint: { resumeId: `resume-${lease.token}`, data: { count: data.count + 1, tokens: [...data.tokens, lease.token] } },
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    try {
      await store.finalize({ leases: [lease], record: next });
      report.finalized++;
    } catch (err) {
      if (!(err instanceof LeaseLostError)) throw err;
      report.lost++;
    }
    report.holds.push([start, monotonicNow()]);
    await store.releaseLease(lease);
  }
  return report;
}

/**
 * The invariants of a hammer run: fencing tokens unique and increasing per worker, no two holds
 * overlapping, the final record's count and revision equal to the finalizes (no lost update) and its
 * token list strictly increasing. Returns a list of violations (empty when the store is sound).
 */
export function checkHammerReports(reports: readonly HammerReport[], finalRecord: ThreadRecord | undefined): string[] {
  const problems: string[] = [];
  const allTokens = reports.flatMap((r) => r.tokens);
  if (new Set(allTokens).size !== allTokens.length) problems.push("a fencing token was granted twice");
  for (const r of reports) {
    if (r.tokens.some((t, i) => i > 0 && t <= r.tokens[i - 1]!)) problems.push(`${r.owner}: tokens did not increase`);
  }
  const holds = reports.flatMap((r) => r.holds).sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < holds.length; i++) if (holds[i]![0] < holds[i - 1]![1]) problems.push(`holds overlap at ${i}`);
  const finalized = reports.reduce((n, r) => n + r.finalized, 0);
  const data = finalRecord?.checkpoint.data as { count?: number; tokens?: number[] } | undefined;
  if (data?.count !== finalized) problems.push(`final count ${String(data?.count)} != ${finalized} finalizes (lost update)`);
  const written = data?.tokens ?? [];
  if (written.some((t, i) => i > 0 && t <= written[i - 1]!)) problems.push("the recorded tokens are not strictly increasing");
  if (finalized > 0 && finalRecord?.revision !== finalized)
    problems.push(`final revision ${String(finalRecord?.revision)} != ${finalized} finalizes`);
  return problems;
}

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * The body of one hammer worker process, for {@link runHammerWorkers}: prints `ready`, waits for a
 * line on stdin, runs {@link leaseHammer} (printing `busy` at its first BusyError), closes the store
 * and prints the report as the last stdout line (JSON).
 */
export async function hammerWorkerMain(store: ThreadStore, options: { owner: string; cycles: number; key: string }): Promise<void> {
  process.stdout.write("ready\n");
  await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
  process.stdin.pause();
  const report = await leaseHammer(store, { ...options, onFirstBusy: () => process.stdout.write("busy\n") });
  await store.close();
  process.stdout.write(JSON.stringify(report) + "\n");
}

/**
 * Starts one worker process per argv (each runs {@link hammerWorkerMain}) and returns their reports
 * (each worker's last stdout line, JSON). Rejects when a worker exits non-zero, with its stderr.
 *
 * So that the workers really contend whatever the machine's speed, the caller's `holder` (a store
 * on the same database) holds the lease on `key` while the workers start: only after every worker
 * has been refused once (printed `busy`) is that lease released. Every report therefore has
 * `busy >= 1`.
 * @param workers - `[command, ...args]` per worker; `cwd` and `timeoutMs` (default 60,000) apply to all.
 */
export async function runHammerWorkers(
  workers: readonly (readonly string[])[],
  { cwd, timeoutMs = 60_000, holder, key }: { cwd: string; timeoutMs?: number; holder: ThreadStore; key: string },
): Promise<HammerReport[]> {
  const children = workers.map(([command, ...args]) => spawn(command ?? process.execPath, args, { cwd, timeout: timeoutMs }));
  const outputs = children.map((child) => {
    let out = "";
    let err = "";
    const signals = { ready: signal(), busy: signal() };
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const lines = out.split("\n");
      if (lines.includes("ready")) signals.ready.resolve();
      if (lines.includes("busy")) signals.busy.resolve();
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const done = new Promise<HammerReport>((resolve, reject) =>
      child.on("close", (code) => {
        signals.ready.resolve();
        signals.busy.resolve();
        if (code === 0) resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "") as HammerReport);
        else reject(new Error(`hammer worker exited with ${code}: ${err}`));
      }),
    );
    return { ...signals, done };
  });
  const lease = await holder.acquireLease(key, "hammer-holder", timeoutMs);
  try {
    await Promise.all(outputs.map((o) => o.ready.promise));
    for (const child of children) child.stdin.end("go\n");
    await Promise.all(outputs.map((o) => o.busy.promise));
  } finally {
    await holder.releaseLease(lease);
  }
  return Promise.all(outputs.map((o) => o.done));
}
