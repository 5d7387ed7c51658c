// Portable sessions by transcript size: the SDK's own CPU per warm thread turn with a 0.15 MB and a
// 20 MB session transcript, on each store (memory, SQLite, and PostgreSQL when ADAPTOR_TEST_PG_URL
// is set), on the same host turn after turn and on two hosts taking turns (each then holds a copy
// one turn old). The CLI is a stand-in that appends about 1 kB per turn to a real transcript file
// (fixtures/transcript-claude.mjs), so the figure is the SDK's: process CPU (user + system) of
// this process around `thread.run()`, children excluded; the two sizes take turns. BENCH_CPU_PROFILE=<dir> also writes a CPU
// profile of each series' measured turns there.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { claude } from "@adaptor/claude";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import { Agent } from "adaptor";
import pg from "pg";
import { fmt, type Benchmark, type Figure } from "./harness.js";
import { median, range } from "./pipeline/stats.js";

const SIZES = [
  { label: "0.15 MB", bytes: 150_000 },
  { label: "20 MB", bytes: 20_000_000 },
];
const WARMUP = 2;
const MEASURED = 9;
// A full GC before the measured turns, so the first turn's garbage (a 20 MB transcript written and
// compressed) is not collected, and counted, during them.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const command = fileURLToPath(new URL("./fixtures/transcript-claude.mjs", import.meta.url));

/** CPU time of this process (user + system), ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1_000;
}

/** A profiler over the measured turns when BENCH_CPU_PROFILE names a folder. */
async function profiler(name: string): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return async () => {};
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(join(dir, `${name.replace(/[^a-zA-Z0-9.]+/g, "-")}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

/** CLI homes the hosts made, removed once their series is done. */
const homes: string[] = [];

function host(store: ThreadStore, cwd: string, pad: number): Agent {
  const home = mkdtempSync(join(tmpdir(), "bench-claude-home-"));
  homes.push(home);
  return new Agent(
    claude({
      command,
      inheritEnv: false,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CLAUDE_CONFIG_DIR: home, TRANSCRIPT_PAD_BYTES: String(pad) },
    }),
    { threadStore: store, cwd, workspace: "bench" },
  );
}

/** One thread of a series: its agents (one per host) and its measured CPU per turn, ms. */
interface Series {
  readonly key: string;
  readonly agents: Agent[];
  readonly cwd: string;
  readonly cpu: number[];
}

/**
 * CPU per measured turn, ms, of one thread per transcript size, their turns interleaved (so load
 * from outside, GC phases and the like fall on both sizes alike): `hosts` take turns (one host: the
 * same host every turn).
 */
async function series(storeName: string, store: ThreadStore, hosts: number): Promise<number[][]> {
  const all: Series[] = SIZES.map((size) => {
    const cwd = mkdtempSync(join(tmpdir(), "bench-transcript-"));
    return {
      key: `bench-${storeName}-${size.label}-${hosts}`,
      agents: Array.from({ length: hosts }, () => host(store, cwd, size.bytes)),
      cwd,
      cpu: [],
    };
  });
  try {
    for (const s of all) await s.agents[0]!.thread(s.key).run("turn 0");
    let stop: (() => Promise<void>) | undefined;
    for (let turn = 1; turn <= WARMUP + MEASURED; turn++) {
      if (turn === WARMUP + 1) {
        gc();
        stop = await profiler(`${storeName}-${hosts}`);
      }
      for (const s of turn % 2 === 0 ? all : [...all].reverse()) {
        const agent = s.agents[turn % hosts]!;
        const started = cpuMs();
        await agent.thread(s.key).run(`turn ${turn}`);
        if (turn > WARMUP) s.cpu.push(cpuMs() - started);
      }
    }
    await stop?.();
    return all.map((s) => s.cpu);
  } finally {
    for (const s of all) {
      for (const agent of s.agents) await agent.close();
      rmSync(s.cwd, { recursive: true, force: true });
    }
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  }
}

async function measureStore(storeName: string, store: ThreadStore): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const [hosts, how] of [
    [1, "same host"],
    [2, "two hosts taking turns"],
  ] as const) {
    const cpu = await series(storeName, store, hosts);
    for (const [i, size] of SIZES.entries()) {
      figures.push({
        label: `${storeName}, ${size.label} transcript, ${how}: SDK CPU per turn`,
        value: median(cpu[i]!),
        unit: "ms",
        note: `median of ${MEASURED}, min–max ${range(cpu[i]!, (v) => fmt(v, 1))} ms`,
      });
    }
    figures.push({
      label: `${storeName}, ${how}: 20 MB / 0.15 MB`,
      value: median(cpu[1]!) / median(cpu[0]!),
      unit: "x",
      note: "goal ≤ 1.5x",
    });
  }
  return figures;
}

/** `pnpm bench transcript`: SDK CPU per thread turn with a 0.15 MB and a 20 MB session transcript. */
export const sessionTranscript: Benchmark = {
  name: `portable sessions by transcript size: SDK CPU per warm thread turn, 0.15 MB vs 20 MB (medians of ${MEASURED}, stand-in CLI)`,
  run: async () => {
    chmodSync(command, 0o755);
    const figures: Figure[] = [];
    figures.push(...(await measureStore("memory", new MemoryThreadStore())));
    const dir = mkdtempSync(join(tmpdir(), "bench-transcript-sqlite-"));
    const sqlite = new SqliteThreadStore({ path: join(dir, "bench.db") });
    try {
      figures.push(...(await measureStore("sqlite", sqlite)));
    } finally {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
    const url = process.env.ADAPTOR_TEST_PG_URL;
    if (!url) {
      process.stderr.write("bench: ADAPTOR_TEST_PG_URL not set, skipping PostgreSQL (run under scripts/with-postgres.sh)\n");
      return figures;
    }
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const schema = `bench_transcript_${process.pid}`;
    try {
      const postgres = new PostgresThreadStore({ pool, schema });
      await postgres.migrate();
      figures.push(...(await measureStore("postgres", postgres)));
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await pool.end();
    }
    return figures;
  },
};
