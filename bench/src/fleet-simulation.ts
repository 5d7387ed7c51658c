// Many fleet workers against a real PostgreSQL: worker host processes with instant runs (the
// in-process reference driver, no CLI), submitters at a fixed rate, and what PostgreSQL sees.
//
//   PG_MAX_CONNECTIONS=400 scripts/with-postgres.sh node --conditions=source --import tsx \
//     bench/src/fleet-simulation.ts [--hosts 8] [--slots 16] [--submitters 2] [--rate 40] \
//     [--seconds 60] [--threaded 0.5] [--keys 200]
//
// `--hosts` worker processes, each `fleet.worker(..., { concurrency: --slots })`; `--submitters`
// Fleets in this process submit `--rate` runs per second in all (evenly spaced, open loop) for
// `--seconds`, a `--threaded` share of them as thread turns over `--keys` keys. Prints JSON:
// statements per second and per run by role (pg_stat_statements), submit latency (the call, wall
// clock: p50/p99), connections by role and state,
// dispatch latency (submission → attempt start, and → verdict, on PostgreSQL's clock: p50/p99),
// PostgreSQL's CPU (this server's processes, from /proc) per run, and table growth per run.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { Fleet } from "@adaptor/fleet";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import pg from "pg";
import {
  asRole,
  cpuMs,
  prepareServer,
  quantile,
  serverCpu,
  serverPids,
  startWorkerHost,
  statementsByRole,
  stopWorkerHosts,
} from "./fleet/hosts.js";

const { values: args } = parseArgs({
  options: {
    hosts: { type: "string", default: "8" },
    slots: { type: "string", default: "16" },
    submitters: { type: "string", default: "2" },
    rate: { type: "string", default: "40" },
    seconds: { type: "string", default: "60" },
    threaded: { type: "string", default: "0.5" },
    keys: { type: "string", default: "200" },
  },
});
const HOSTS = Number(args.hosts);
const SLOTS = Number(args.slots);
const SUBMITTERS = Number(args.submitters);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const THREADED = Number(args.threaded);
const KEYS = Number(args.keys);
const ROLES = ["sim_submitter", "sim_worker"] as const;

const url = process.env.ADAPTOR_TEST_PG_URL;
if (!url) {
  process.stderr.write("fleet-simulation: ADAPTOR_TEST_PG_URL not set (run under scripts/with-postgres.sh)\n");
  process.exit(2);
}
const admin = new pg.Pool({ connectionString: url, max: 2 });
const schema = `sim_${randomBytes(4).toString("hex")}`;
if (!(await prepareServer(admin, ROLES)))
  throw new Error("fleet-simulation: needs pg_stat_statements (scripts/with-postgres.sh preloads it)");
await new PostgresThreadStore({ pool: admin, schema: `${schema}_threads` }).migrate();

async function connections(): Promise<Record<string, number>> {
  const { rows } = await admin.query<{ role: string; state: string; n: number }>(
    `SELECT coalesce(usename, backend_type) AS role, coalesce(state, '-') AS state, count(*)::int AS n FROM pg_stat_activity GROUP BY 1, 2`,
  );
  return Object.fromEntries(rows.map((r) => [`${r.role} ${r.state}`, r.n]));
}

async function sizes(): Promise<Record<string, number>> {
  const { rows } = await admin.query<{ name: string; bytes: string }>(
    `SELECT n.nspname || '.' || c.relname AS name, pg_total_relation_size(c.oid)::text AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname IN ($1, $2, $3) AND c.relkind = 'r'`,
    [schema, `${schema}_boss`, `${schema}_threads`],
  );
  return Object.fromEntries(rows.map((r) => [r.name.replace(schema, "S"), Number(r.bytes)]));
}

const workerUrl = asRole(url, "sim_worker");
const submitters = Array.from(
  { length: SUBMITTERS },
  () => new Fleet({ connectionString: asRole(url, "sim_submitter"), schema, maxQueued: 1_000_000 }),
);
const hosts = [];
try {
  for (const s of submitters) await s.start();
  for (let h = 0; h < HOSTS; h++) hosts.push(await startWorkerHost(workerUrl, schema, SLOTS, `sim-${h}`, "reference"));
  const idleFrom = performance.now();
  await admin.query("SELECT pg_stat_statements_reset()");
  const { ms: idleCpu } = await serverCpu(admin, () => new Promise((r) => setTimeout(r, 10_000)));
  const idle = await statementsByRole(admin, ROLES);
  const idleSeconds = (performance.now() - idleFrom) / 1000;
  const idleCpuPerSecond = idleCpu / idleSeconds;
  const before = await sizes();

  await admin.query("SELECT pg_stat_statements_reset()");
  const t0 = performance.now();
  const busyPids = await serverPids(admin);
  const busyBefore = new Map(busyPids.map((pid) => [pid, cpuMs([pid])]));
  let submitted = 0;
  let refused = 0;
  let peak: Record<string, number> = {};
  let peakTotal = 0;
  const inflight = new Set<Promise<unknown>>();
  /** Wall-clock time of each accepted `submit` call, ms. */
  const submitMs: number[] = [];
  const total = Math.round(RATE * SECONDS);
  const sampler = setInterval(() => {
    void connections().then((c) => {
      const n = Object.values(c).reduce((a, b) => a + b, 0);
      if (n > peakTotal) [peakTotal, peak] = [n, c];
    });
  }, 2_000);
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const fleet = submitters[i % SUBMITTERS]!;
    const threaded = (i * 7919) % 1000 < THREADED * 1000;
    const calledAt = performance.now();
    const p = fleet
      .submit(`run ${i}`, threaded ? { threadKey: `key-${i % KEYS}` } : {})
      .then(() => {
        submitted++;
        submitMs.push(performance.now() - calledAt);
      })
      .catch(() => void refused++)
      .finally(() => inflight.delete(p));
    inflight.add(p);
  }
  await Promise.all(inflight);
  const submitSeconds = (performance.now() - t0) / 1000;
  // Wait until every run has its verdict (or 120 s more).
  const drainEnd = performance.now() + 120_000;
  for (;;) {
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema}".adaptor_fleet_runs WHERE verdict IS NULL`,
    );
    if (rows[0]!.n === 0 || performance.now() > drainEnd) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  clearInterval(sampler);
  const seconds = (performance.now() - t0) / 1000;
  let busyCpu = 0;
  for (const pid of new Set([...busyPids, ...(await serverPids(admin))])) busyCpu += cpuMs([pid]) - (busyBefore.get(pid) ?? 0);
  const busy = await statementsByRole(admin, ROLES);
  const { rows: latency } = await admin.query<{
    runs: number;
    results: number;
    thread_runs: number;
    start_p50_ms: number;
    start_p99_ms: number;
    verdict_p50_ms: number;
    verdict_p99_ms: number;
    events: number;
  }>(
    `SELECT count(*)::int AS runs, count(*) FILTER (WHERE verdict->>'kind' = 'result')::int AS results,
            count(*) FILTER (WHERE thread_key IS NOT NULL)::int AS thread_runs,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - submitted_at) * 1000) AS start_p50_ms,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - submitted_at) * 1000) AS start_p99_ms,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - submitted_at) * 1000) AS verdict_p50_ms,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - submitted_at) * 1000) AS verdict_p99_ms,
            (SELECT count(*) FROM "${schema}".adaptor_fleet_events)::int AS events
     FROM "${schema}".adaptor_fleet_runs`,
  );
  const after = await sizes();
  const runs = latency[0]!.runs;
  const growth = Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, Math.round((v - (before[k] ?? 0)) / Math.max(1, runs))] as const)
      .filter(([, v]) => v > 0),
  );
  const perRole = Object.fromEntries(
    ROLES.map((role) => {
      const b = busy.get(role)!;
      return [
        role,
        {
          idlePerSecond: Math.round((idle.get(role)!.calls / idleSeconds) * 10) / 10,
          perSecond: Math.round((b.calls / seconds) * 10) / 10,
          perRun: Math.round((b.calls / Math.max(1, runs)) * 10) / 10,
          execMsPerRun: Math.round((b.execMs / Math.max(1, runs)) * 100) / 100,
          top: b.top.slice(0, 6),
        },
      ];
    }),
  );
  console.log(
    JSON.stringify(
      {
        setup: {
          hosts: HOSTS,
          slots: SLOTS,
          workers: HOSTS * SLOTS,
          submitters: SUBMITTERS,
          rate: RATE,
          seconds: SECONDS,
          threaded: THREADED,
          keys: KEYS,
        },
        submitted,
        refused,
        achievedSubmitRate: Math.round((submitted / submitSeconds) * 10) / 10,
        submitMs: { p50: Math.round(quantile(submitMs, 0.5) * 10) / 10, p99: Math.round(quantile(submitMs, 0.99) * 10) / 10 },
        wallSeconds: Math.round(seconds * 10) / 10,
        ...latency[0],
        eventsPerRun: Math.round((latency[0]!.events / Math.max(1, runs)) * 10) / 10,
        statements: perRole,
        statementsPerSecond: Math.round(((busy.get(ROLES[0])!.calls + busy.get(ROLES[1])!.calls) / seconds) * 10) / 10,
        serverCpu: {
          idleMsPerSecond: Math.round(idleCpuPerSecond),
          msPerSecond: Math.round(busyCpu / seconds),
          msPerRun: Math.round((busyCpu / Math.max(1, runs)) * 100) / 100,
        },
        connectionsAtPeak: { total: peakTotal, ...peak },
        bytesPerRun: growth,
        loadAverage: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
      },
      null,
      2,
    ),
  );
} finally {
  await stopWorkerHosts(hosts);
  for (const s of submitters) await s.close();
  for (const s of [schema, `${schema}_boss`, `${schema}_threads`])
    await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`).catch(() => {});
  await admin.end();
}
