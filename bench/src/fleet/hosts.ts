// Shared by the fleet benchmark and the fleet simulation: worker host processes, database roles
// (pg_stat_statements counts statements per role, so each kind of host gets its own), and time.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";

const WORKER_SCRIPT = fileURLToPath(new URL("./worker-process.ts", import.meta.url));

/** Epoch milliseconds with sub-millisecond precision, comparable across processes of this machine. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** `url` with its user replaced by `role`. */
export function asRole(url: string, role: string): string {
  const u = new URL(url);
  u.username = role;
  return u.toString();
}

/**
 * Creates login roles (superusers: the throwaway cluster trusts local connections) if missing, and
 * `pg_stat_statements` when the server preloads it. Returns whether statements can be counted.
 */
export async function prepareServer(pool: pg.Pool, roles: readonly string[]): Promise<boolean> {
  for (const role of roles) {
    await pool.query(`DO $$ BEGIN CREATE ROLE ${role} SUPERUSER LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
  }
  try {
    await pool.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await pool.query("SELECT pg_stat_statements_reset()");
    return true;
  } catch {
    return false;
  }
}

/**
 * Statements executed per role since the last reset (`pg_stat_statements`): how many, their total
 * execution time (ms) and the most frequent ones with their mean execution time (ms).
 */
export async function statementsByRole(
  pool: pg.Pool,
  roles: readonly string[],
): Promise<Map<string, { calls: number; execMs: number; top: { calls: number; meanMs: number; query: string }[] }>> {
  const { rows } = await pool.query<{ role: string; calls: string; total: number; query: string }>(
    `SELECT r.rolname AS role, s.calls::text AS calls, s.total_exec_time AS total, s.query FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
     WHERE r.rolname = ANY($1) ORDER BY s.calls DESC`,
    [roles],
  );
  const out = new Map(roles.map((role) => [role, { calls: 0, execMs: 0, top: [] as { calls: number; meanMs: number; query: string }[] }]));
  for (const row of rows) {
    const entry = out.get(row.role)!;
    const calls = Number(row.calls);
    entry.calls += calls;
    entry.execMs += row.total;
    if (entry.top.length < 12)
      entry.top.push({ calls, meanMs: Math.round((row.total / calls) * 1000) / 1000, query: row.query.replace(/\s+/g, " ").slice(0, 140) });
  }
  return out;
}

/** Starts a worker host process (`worker-process.ts`) and resolves once it polls. */
export function startWorkerHost(
  url: string,
  schema: string,
  concurrency: number,
  name: string,
  driver: "fake-codex" | "reference",
): Promise<ChildProcess> {
  // BENCH_FLEET_CPU_PROF=<dir>: each worker host writes a V8 CPU profile there when it exits.
  const profile = process.env.BENCH_FLEET_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_FLEET_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...process.execArgv, ...profile, WORKER_SCRIPT, url, schema, String(concurrency), name, driver], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`worker host ${name} exited ${code} before ready`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve(child);
    });
  });
}

/** Stops worker host processes (SIGTERM, then SIGKILL after 10 s) and waits for their exit. */
export async function stopWorkerHosts(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.removeAllListeners("exit");
          const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
          child.once("exit", () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill("SIGTERM");
        }),
    ),
  );
}

/** The value at quantile `q` (0..1) of `values` (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/**
 * User + system CPU of `pids` (those still running), ms (clock ticks of 10 ms); with `children`,
 * also that of their children that exited and were waited for (the CLIs a host spawned).
 */
export function cpuMs(pids: readonly (number | "self")[], children = false): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
    } catch {
      // gone
    }
  }
  return ticks * 10;
}

/** A PostgreSQL server's processes (backends and background processes, from pg_stat_activity). */
export async function serverPids(pool: pg.Pool): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity");
  return rows.map((r) => r.pid);
}

/** CPU the server spent while `body` ran, ms: its processes at the start and at the end (a connection opened and closed in between is missed). */
export async function serverCpu<T>(pool: pg.Pool, body: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const first = await serverPids(pool);
  const before = new Map(first.map((pid) => [pid, cpuMs([pid])]));
  const value = await body();
  const last = new Set([...first, ...(await serverPids(pool))]);
  let ms = 0;
  for (const pid of last) ms += cpuMs([pid]) - (before.get(pid) ?? 0);
  return { value, ms };
}
