// The fleet's dispatch overhead against a local run, its throughput with 8 workers, and the
// PostgreSQL statements each run costs. Needs PostgreSQL (scripts/with-postgres.sh pnpm bench fleet).
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codex } from "@adaptor/codex";
import { Fleet, type RunHandle } from "@adaptor/fleet";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Agent } from "adaptor";
import pg from "pg";
import { fmt, type Benchmark, type Figure } from "./harness.js";
import {
  asRole,
  cpuMs,
  epochMs,
  prepareServer,
  quantile,
  serverCpu,
  startWorkerHost,
  statementsByRole,
  stopWorkerHosts,
} from "./fleet/hosts.js";
import { FIXTURES } from "./pipeline/consumer-process.js";

/** Sequential runs per form (fleet, local) for the submit → spawn figure. */
const DISPATCH_ROUNDS = 30;
/** Runs per form for the event latency figure, each streaming {@link TIMED_DELTAS} deltas {@link GAP_MS} apart. */
const TIMED_RUNS = 3;
const TIMED_DELTAS = 100;
const GAP_MS = 10;
/** Worker host processes × runs each at once: the 8 workers of the throughput figure. */
const HOSTS = 2;
const PER_HOST = 4;
/** Runs of the throughput figure, each a fake CLI turn of {@link RUN_MS}. */
const THROUGHPUT_RUNS = 96;
const RUN_MS = 200;
/** Thread keys × turns of the thread-run throughput figure. */
const THREAD_KEYS = 16;
const THREAD_TURNS = 3;
const ROLES = ["bench_submitter", "bench_worker", "bench_reader"] as const;

/**
 * `pnpm bench fleet`: `@adaptor/fleet` against a local `agent.run` on the bench's fake codex CLI.
 * (a) submit → CLI spawn: a fleet run submitted from this process and run by an idle worker host
 * (another process) against the same run on a local Agent, one at a time, interleaved; the fake
 * records when it was spawned (its `performance.timeOrigin`), both on this machine's clock.
 * (b) worker event → subscriber: the fake writes a delta every {@link GAP_MS} ms holding the time
 * it wrote it; a subscriber in this process (`handle.events()`) against a local `for await` over
 * the same run's stream: median and p99 of the arrival delays. (c) throughput: {@link THROUGHPUT_RUNS}
 * short runs submitted at once to 8 workers ({@link HOSTS} hosts × {@link PER_HOST}) against the
 * same runs on 8 local lanes, and against the ideal (8 / one run's length). (d) PostgreSQL
 * statements per run (`pg_stat_statements`, per role: submitter, worker hosts, reader) over the
 * throughput runs, for runs without and with a thread key.
 */
export const fleetDispatch: Benchmark = {
  name: "fleet: dispatch overhead, event latency, throughput with 8 workers, statements per run (postgres)",
  async run(): Promise<Figure[]> {
    const url = process.env.ADAPTOR_TEST_PG_URL;
    if (!url) {
      process.stderr.write("bench: ADAPTOR_TEST_PG_URL not set, skipping the fleet (run under scripts/with-postgres.sh)\n");
      return [];
    }
    const figures: Figure[] = [];
    const admin = new pg.Pool({ connectionString: url, max: 2 });
    const schema = `bench_fleet_${randomBytes(4).toString("hex")}`;
    const dir = mkdtempSync(join(tmpdir(), "adaptor-bench-fleet-"));
    const spawnLog = join(dir, "spawns.log");
    const counted = await prepareServer(admin, ROLES);
    const threads = new PostgresThreadStore({ pool: admin, schema: `${schema}_threads` });
    await threads.migrate();
    const submitter = new Fleet({ connectionString: asRole(url, "bench_submitter"), schema });
    const reader = new Fleet({ connectionString: asRole(url, "bench_reader"), schema });
    const local = new Agent(codex({ command: join(FIXTURES, "fake-codex-app-server.mjs"), killGraceMs: 300 }));
    const hosts: ChildProcess[] = [];
    try {
      await submitter.start();
      await reader.start();
      for (let h = 0; h < HOSTS; h++)
        hosts.push(await startWorkerHost(asRole(url, "bench_worker"), schema, PER_HOST, `host-${h}`, "fake-codex"));
      let tags = 0;
      const spawnedAt = (tag: string): number => {
        const line = readFileSync(spawnLog, "utf8")
          .split("\n")
          .find((l) => l.startsWith(`${tag} `));
        if (!line) throw new Error(`fleet bench: the fake CLI of ${tag} left no spawn time`);
        return Number(line.slice(tag.length + 1));
      };
      const env = (extra: Record<string, string>) => ({ FAKE_N: "1", FAKE_SPAWN_LOG: spawnLog, FAKE_TAG: `t${++tags}`, ...extra });
      const viaFleet = async (runEnv: Record<string, string>, threadKey?: string): Promise<RunHandle> =>
        submitter.submit("hi", { runOptions: { env: runEnv }, ...(threadKey ? { threadKey } : {}) });

      // (a) submit → spawn, one run at a time, fleet and local alternating.
      const spawn = { fleet: [] as number[], local: [] as number[] };
      const whole = { fleet: [] as number[], local: [] as number[] };
      for (let r = 0; r < DISPATCH_ROUNDS + 2; r++) {
        for (const form of r % 2 ? (["local", "fleet"] as const) : (["fleet", "local"] as const)) {
          const runEnv = env({});
          const t0 = epochMs();
          if (form === "fleet") await reader.handle((await viaFleet(runEnv)).id).result();
          else await local.run("hi", { env: runEnv });
          const t1 = epochMs();
          if (r < 2) continue; // warm-up
          spawn[form].push(spawnedAt(runEnv.FAKE_TAG) - t0);
          whole[form].push(t1 - t0);
        }
      }
      const ms = (v: number): string => `${fmt(v, 1)} ms`;
      figures.push(
        {
          label: "submit → CLI spawn, local agent.run (baseline)",
          value: quantile(spawn.local, 0.5),
          unit: "ms median",
          note: `p99 ${ms(quantile(spawn.local, 0.99))}; whole run ${ms(quantile(whole.local, 0.5))}, ${DISPATCH_ROUNDS} runs`,
        },
        {
          label: "submit → CLI spawn, fleet (worker in another process)",
          value: quantile(spawn.fleet, 0.5),
          unit: "ms median",
          note: `p99 ${ms(quantile(spawn.fleet, 0.99))}; +${ms(quantile(spawn.fleet, 0.5) - quantile(spawn.local, 0.5))} over local; whole run (submit → result on another Fleet) ${ms(quantile(whole.fleet, 0.5))}, ${fmt(quantile(whole.fleet, 0.5) / quantile(whole.local, 0.5), 2)}× local`,
        },
      );

      // (b) worker event → subscriber in another process, against a local consumer.
      const delay = { fleet: [] as number[], local: [] as number[] };
      const timed = { FAKE_N: String(TIMED_DELTAS), FAKE_GAP_MS: String(GAP_MS) };
      for (let r = 0; r < TIMED_RUNS; r++) {
        const stream = local.stream("hi", { env: env(timed) });
        for await (const event of stream) if (event.type === "text-delta") delay.local.push(epochMs() - Number(event.text));
        await stream.result();
        const handle = reader.handle((await viaFleet(env(timed))).id);
        for await (const { event } of handle.events()) {
          if (event.type === "text-delta") delay.fleet.push(epochMs() - Number((event as unknown as { text: string }).text));
        }
      }
      figures.push(
        {
          label: "CLI event → local for-await consumer (baseline)",
          value: quantile(delay.local, 0.5),
          unit: "ms median",
          note: `p99 ${ms(quantile(delay.local, 0.99))}, ${delay.local.length} events`,
        },
        {
          label: "CLI event → worker → subscriber in another process",
          value: quantile(delay.fleet, 0.5),
          unit: "ms median",
          note: `p99 ${ms(quantile(delay.fleet, 0.99))}, ${delay.fleet.length} events; +${ms(quantile(delay.fleet, 0.5) - quantile(delay.local, 0.5))} median, +${ms(quantile(delay.fleet, 0.99) - quantile(delay.local, 0.99))} p99 over local`,
        },
      );

      // (c) + (d) throughput with 8 workers and statements per run, without and with thread keys.
      const lanes = HOSTS * PER_HOST;
      // CPU per run (ms) by where it was spent: this process (the local Agent, or the fleet's
      // submitting and reading hosts), the CLIs it spawned, the worker host processes with their
      // CLIs, and the PostgreSQL server.
      const cpu = {
        local: [] as number[],
        localClis: [] as number[],
        front: [] as number[],
        workers: [] as number[],
        server: [] as number[],
      };
      const workerPids = (): number[] => hosts.map((h) => h.pid!);
      const localRate = async (): Promise<number> => {
        let next = 0;
        const self = cpuMs(["self"]);
        const clis = cpuMs(["self"], true) - self;
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: lanes }, async () => {
            while (next++ < THROUGHPUT_RUNS) await local.run("hi", { env: env({ FAKE_SLEEP_MS: String(RUN_MS) }) });
          }),
        );
        const rate = (THROUGHPUT_RUNS * 1000) / (performance.now() - t0);
        const selfAfter = cpuMs(["self"]);
        cpu.local.push((selfAfter - self) / THROUGHPUT_RUNS);
        cpu.localClis.push((cpuMs(["self"], true) - selfAfter - clis) / THROUGHPUT_RUNS);
        return rate;
      };
      const fleetRate = async (
        keys: readonly (string | undefined)[],
      ): Promise<{ rate: number; busy: number; perRun: Map<string, number> }> => {
        if (counted) await admin.query("SELECT pg_stat_statements_reset()");
        const front = cpuMs(["self"]);
        const workers = cpuMs(workerPids(), true);
        const t0 = performance.now();
        const { value: handles, ms: serverMs } = await serverCpu(admin, async () => {
          const submitted = await Promise.all(keys.map((key) => viaFleet(env({ FAKE_SLEEP_MS: String(RUN_MS) }), key)));
          await Promise.all(submitted.map((h) => reader.handle(h.id).result()));
          return submitted;
        });
        const rate = (keys.length * 1000) / (performance.now() - t0);
        if (keys[0] === undefined) {
          cpu.front.push((cpuMs(["self"]) - front) / keys.length);
          cpu.workers.push((cpuMs(workerPids(), true) - workers) / keys.length);
          cpu.server.push(serverMs / keys.length);
        }
        // The slots' busy share: attempt start → verdict of every run, over 8 slots × first start → last verdict.
        const { rows: spans } = await admin.query<{ busy: number }>(
          `SELECT (sum(extract(epoch FROM finished_at - started_at)) / ($2::float8 * extract(epoch FROM max(finished_at) - min(started_at))))::float8 AS busy
           FROM "${schema}".adaptor_fleet_runs WHERE id = ANY($1::uuid[])`,
          [handles.map((h) => h.id), lanes],
        );
        const busy = spans[0]?.busy ?? Number.NaN;
        const perRun = new Map<string, number>();
        if (counted) {
          const stats = await statementsByRole(admin, ROLES);
          for (const [role, { calls, top }] of stats) {
            perRun.set(role, calls / keys.length);
            if (process.env.BENCH_FLEET_STATEMENTS) {
              process.stderr.write(`\n${role}: ${calls} statements for ${keys.length} runs\n`);
              for (const t of top) process.stderr.write(`  ${String(t.calls).padStart(6)}  ${t.meanMs.toFixed(3)} ms  ${t.query}\n`);
            }
          }
        }
        return { rate, busy, perRun };
      };
      // One run's length: the fake's turn plus what a run costs around it (a local run without the sleep).
      const runLength = RUN_MS + quantile(whole.local, 0.5);
      const ideal = (lanes * 1000) / runLength;
      const localFirst = await localRate();
      const plain = await fleetRate(Array.from({ length: THROUGHPUT_RUNS }, () => undefined));
      const localSecond = await localRate();
      // A second round of each, alternating, for the CPU profile (not in the rates above).
      await fleetRate(Array.from({ length: THROUGHPUT_RUNS }, () => undefined));
      await localRate();
      const keys = Array.from({ length: THREAD_TURNS }, () => Array.from({ length: THREAD_KEYS }, (_, k) => `k${k}`)).flat();
      const threaded = await fleetRate(keys);
      const localRuns = (localFirst + localSecond) / 2;
      figures.push(
        {
          label: `throughput, ${lanes} local lanes on one Agent (baseline)`,
          value: localRuns,
          unit: "runs/s",
          note: `${THROUGHPUT_RUNS} runs of a ${RUN_MS} ms fake CLI turn, before and after the fleet: ${fmt(localFirst, 1)} and ${fmt(localSecond, 1)}; ideal ${fmt(ideal, 1)} (${lanes} / ${ms(runLength)}: the turn + one local run without it)`,
        },
        {
          label: `throughput, fleet, ${lanes} workers (${HOSTS} hosts × ${PER_HOST})`,
          value: plain.rate,
          unit: "runs/s",
          note: `${fmt(plain.rate / localRuns, 2)}× the local lanes, ${fmt(plain.rate / ideal, 2)}× ideal; slots busy ${fmt(plain.busy * 100, 0)}% of the time (attempt start → verdict); runs without a thread key, all submitted at once (a backlog: a slot that finishes a run fetches the next at once)`,
        },
        {
          label: "CPU per run, local lanes: SDK process + CLIs",
          value: quantile(cpu.local, 0.5) + quantile(cpu.localClis, 0.5),
          unit: "ms",
          note: `SDK process ${fmt(quantile(cpu.local, 0.5), 1)} ms, CLIs ${fmt(quantile(cpu.localClis, 0.5), 1)} ms; median of ${cpu.local.length} phases of ${THROUGHPUT_RUNS} runs (clock ticks of 10 ms)`,
        },
        {
          label: "CPU per run, fleet: submitting/reading process + worker hosts with CLIs + PostgreSQL",
          value: quantile(cpu.front, 0.5) + quantile(cpu.workers, 0.5) + quantile(cpu.server, 0.5),
          unit: "ms",
          note: `submit + result() ${fmt(quantile(cpu.front, 0.5), 1)} ms, worker hosts with their CLIs ${fmt(quantile(cpu.workers, 0.5), 1)} ms, PostgreSQL ${fmt(quantile(cpu.server, 0.5), 1)} ms; median of ${cpu.front.length} phases`,
        },
        {
          label: `throughput, fleet, ${lanes} workers, thread runs`,
          value: threaded.rate,
          unit: "runs/s",
          note: `${THREAD_KEYS} keys × ${THREAD_TURNS} turns (one turn per key at a time), ${fmt(threaded.rate / localRuns, 2)}× the local lanes; slots busy ${fmt(threaded.busy * 100, 0)}%`,
        },
      );
      if (!counted) {
        process.stderr.write("bench: pg_stat_statements is not loaded; statements per run not counted\n");
      } else {
        for (const [form, { perRun }] of [
          ["runs without a thread key", plain],
          ["thread runs", threaded],
        ] as const) {
          const [s, w, r] = ROLES.map((role) => perRun.get(role) ?? 0);
          figures.push({
            label: `postgres statements per run, ${form}`,
            value: s! + w! + r!,
            unit: "statements",
            note: `submitted ${fmt(s!, 1)}, executed ${fmt(w!, 1)} (worker hosts), read ${fmt(r!, 1)} (result() on another Fleet); pg_stat_statements, includes pg-boss's own polling and maintenance over the ${form === "thread runs" ? "thread" : "plain"} phase`,
          });
        }
      }
    } finally {
      await stopWorkerHosts(hosts);
      await local.close();
      await submitter.close();
      await reader.close();
      for (const s of [schema, `${schema}_boss`, `${schema}_threads`])
        await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`).catch(() => {});
      await admin.end();
      rmSync(dir, { recursive: true, force: true });
    }
    return figures;
  },
};
