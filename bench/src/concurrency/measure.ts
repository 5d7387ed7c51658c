// The measurement both concurrent-runs consumers share (ours and the Claude Agent SDK's), so the
// two are measured the same way: RSS settled after GCs before the runs, sampled every 10 ms and at
// the moment every run asked for approval, then after the runs and once V8 shrank its young
// generation. Run with --expose-gc.
import { readFileSync, writeFileSync } from "node:fs";
import type { HeapProfiler } from "node:inspector";
import { Session } from "node:inspector/promises";
import { PerformanceObserver, constants as perfConstants, type PerformanceEntry } from "node:perf_hooks";
import { getHeapSpaceStatistics, writeHeapSnapshot } from "node:v8";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const collect: () => void = gc;

/** Concurrent runs to start (env RUNS, default 100). */
export const RUNS = Number(process.env.RUNS ?? 100);
/**
 * Warm-up runs before the measured ones (env WARMUP_RUNS, default 1). More let V8's optimizing
 * compiler run before the measurement (paging in its code and that of what it compiles): a probe of
 * what is one-time, not per run; the benchmark itself uses the default.
 */
const WARMUP_RUNS = Number(process.env.WARMUP_RUNS ?? 1);
/** Text deltas per run the fake CLI writes (env FAKE_N, default 1,000). */
export const FAKE_N = process.env.FAKE_N ?? "1000";

const rss = (): number => process.memoryUsage.rss();

/**
 * CPU time this process's main thread has run so far, µs (the first field of
 * `/proc/self/task/<pid>/schedstat`, ns, user and system together): the JavaScript, the event
 * loop, the garbage collector's share on that thread and the forks, without V8's compiler and GC
 * helper threads or libuv's pool. Undefined where the file cannot be read.
 */
function mainThreadCpuUs(): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "latin1").split(" ")[0]);
    return Number.isFinite(ns) ? ns / 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The resident set split as `/proc/self/status` gives it, bytes: `anon` (heap, stacks, buffers:
 * what the program holds) and `file` (mapped files: the node binary's code, paged in as it is first
 * run, e.g. V8's optimizing compiler the first time it compiles). Zeros where there is no `/proc`.
 */
function rssParts(): { anon: number; file: number } {
  try {
    const status = readFileSync("/proc/self/status", "latin1");
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
    return { anon: kib("RssAnon"), file: kib("RssFile") };
  } catch {
    return { anon: 0, file: 0 };
  }
}

/**
 * The JS side of the memory, bytes, as `process.memoryUsage()` splits it: the V8 heap reserved and
 * used, memory outside it that JS objects hold (`external`, of which `arrayBuffers`: `Buffer`s and
 * other backing stores, counted whole).
 */
export interface HeapParts {
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

function heapParts(): HeapParts {
  const { heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { heapTotal, heapUsed, external, arrayBuffers };
}

/**
 * Folder for heap snapshots (env HEAP_SNAPSHOT_DIR, unset by default): when set, a snapshot is
 * written at the same start and at the moment every run asked, `before.heapsnapshot` and
 * `asked.heapsnapshot` (a probe: writing one stops the process for seconds, so never in the figures).
 */
const HEAP_SNAPSHOT_DIR = process.env.HEAP_SNAPSHOT_DIR;

/**
 * Folder for copies of `/proc/self/smaps` (env SMAPS_DIR, unset by default): when set, at the same
 * start and at the moment every run asked, `before.smaps` and `asked.smaps` (a probe: what each
 * mapping holds resident).
 */
const SMAPS_DIR = process.env.SMAPS_DIR;

/**
 * File for a sampling allocation profile of the runs' window (env HEAP_PROFILE, unset by default):
 * when set, V8's sampling heap profiler runs from the runs' start until every run ended, counting
 * the objects collected meanwhile too (the garbage the runs made, not only what they held), and
 * writes a `.heapprofile` (Chrome DevTools' format) there. A probe: sampling costs CPU, so never in
 * the figures. Env HEAP_PROFILE_INTERVAL: the mean bytes between samples (default 4096).
 */
const HEAP_PROFILE = process.env.HEAP_PROFILE;
const HEAP_PROFILE_INTERVAL = Number(process.env.HEAP_PROFILE_INTERVAL ?? 4096);

/** Starts the sampling heap profiler when {@link HEAP_PROFILE} is set; resolves a function that stops it and writes the profile. */
async function startHeapProfile(): Promise<() => Promise<void>> {
  if (!HEAP_PROFILE) return async () => undefined;
  const session = new Session();
  session.connect();
  // Two flags of the protocol that Node 20's types do not list.
  const params: HeapProfiler.StartSamplingParameterType & {
    includeObjectsCollectedByMajorGC: boolean;
    includeObjectsCollectedByMinorGC: boolean;
  } = {
    samplingInterval: HEAP_PROFILE_INTERVAL,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  };
  await session.post("HeapProfiler.startSampling", params);
  return async () => {
    const { profile } = await session.post("HeapProfiler.stopSampling");
    writeFileSync(HEAP_PROFILE, JSON.stringify(profile));
    session.disconnect();
  };
}

/** Garbage collections by kind while observed, with their total pause, ms (from `perf_hooks`' `gc` entries). */
export interface GcCounts {
  /** Young-generation collections (scavenges). */
  readonly minor: number;
  /** Full mark-compacts. */
  readonly major: number;
  /** Incremental marking steps. */
  readonly incremental: number;
  /** Weak callback processing. */
  readonly weak: number;
  /** Sum of the entries' durations, ms (main-thread pauses; helper threads' work is not in it). */
  readonly ms: number;
}

/** Counts GCs from now until the returned function is called, which resolves the counts (after the entries queued so far are delivered). */
function countGcs(): () => Promise<GcCounts> {
  const counts = { minor: 0, major: 0, incremental: 0, weak: 0, ms: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      counts.ms += entry.duration;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) counts.minor++;
      else if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) counts.major++;
      else if (kind === perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL) counts.incremental++;
      else if (kind === perfConstants.NODE_PERFORMANCE_GC_WEAKCB) counts.weak++;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return async () => {
    await new Promise((resolve) => setImmediate(resolve));
    observer.disconnect();
    return { ...counts };
  };
}

/** RSS after three GCs, each followed by a turn of the event loop. */
export async function settledRss(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return rss();
}

/** How long to wait, at most, for V8's idle memory reducer after the runs. */
const IDLE_WAIT_MS = 15_000;
const newSpaceBytes = (): number => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;

/** The young generation's size once V8 shrank it idle (its initial semi-space, 1 MiB). */
const IDLE_NEW_SPACE_BYTES = 1024 * 1024;

/**
 * Under load V8 grows its young generation (up to 2 x 16 MiB of semi-spaces) and keeps that capacity
 * through full GCs until it sees the allocation rate low: then a GC shrinks it. Waits idle, with a
 * GC every 500 ms, while `growing()` holds and at most {@link IDLE_WAIT_MS}, then measures again.
 * Resolves the RSS and the wait, ms.
 */
async function idleRss(growing: () => boolean): Promise<{ rss: number; waitedMs: number }> {
  const started = performance.now();
  while (growing() && performance.now() - started < IDLE_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    collect();
  }
  const waitedMs = performance.now() - started;
  return { rss: await settledRss(), waitedMs };
}

/** What one run reports: whether its verdict matched its handler's decision, its deltas, and why not. */
export interface RunOutcome {
  readonly ok: boolean;
  readonly deltas: number;
  readonly detail: string;
}

/** One run: `name`, its approval handler (called once per approval asked), the text its verdict must carry. */
export type RunOne = (name: string, onApproval: (allow: boolean) => Promise<boolean>, expected: string) => Promise<RunOutcome>;

/**
 * Measures {@link RUNS} concurrent runs of `runOne` after one warm-up run: every approval handler
 * waits until all runs asked (so all are in flight at once), then even runs are allowed, odd ones
 * denied. `close` ends what the runs used. Prints the report as one JSON line.
 */
export async function measureConcurrentRuns(runOne: RunOne, close: () => Promise<void>): Promise<void> {
  const expectation = (i: number, name: string): string => (i % 2 === 0 ? `allowed ${name}` : `denied ${name}`);
  // Warm-up: one run (WARMUP_RUNS, one after another), so code compiled on first use is not counted as per-run memory.
  for (let i = 0; i < WARMUP_RUNS; i++) {
    const warm = await runOne("warm-up", async () => true, expectation(0, "warm-up"));
    if (!warm.ok) throw new Error(`warm-up run failed: ${warm.detail}`);
  }

  const before = await settledRss();
  const heapBefore = process.memoryUsage().heapUsed;
  const newSpaceBefore = newSpaceBytes();
  // The same RSS once V8 shrank its young generation to its idle size: the start every program
  // shares, whatever its warm-up left the young generation at (the runs grow it again).
  const beforeIdle = await idleRss(() => newSpaceBytes() > IDLE_NEW_SPACE_BYTES);
  const newSpaceBeforeIdle = newSpaceBytes();
  const partsBeforeIdle = rssParts();
  const heapBeforeIdle = heapParts();
  if (HEAP_SNAPSHOT_DIR) writeHeapSnapshot(`${HEAP_SNAPSHOT_DIR}/before.heapsnapshot`);
  if (SMAPS_DIR) writeFileSync(`${SMAPS_DIR}/before.smaps`, readFileSync("/proc/self/smaps"));
  let partsAllAsked = partsBeforeIdle;
  let heapAllAsked = heapBeforeIdle;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
  let asked = 0;
  let releaseAll: () => void = () => undefined;
  const allAsked = new Promise<void>((resolve) => (releaseAll = resolve));
  const stopHeapProfile = await startHeapProfile();
  const gcs = countGcs();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const mainBefore = mainThreadCpuUs();
  const outcomes = await Promise.all(
    Array.from({ length: RUNS }, (_, i) => {
      const name = `run-${i}`;
      return runOne(
        name,
        async (allow) => {
          if (++asked === RUNS) {
            peak = Math.max(peak, rss());
            partsAllAsked = rssParts();
            heapAllAsked = heapParts();
            if (SMAPS_DIR) writeFileSync(`${SMAPS_DIR}/asked.smaps`, readFileSync("/proc/self/smaps"));
            if (HEAP_SNAPSHOT_DIR) writeHeapSnapshot(`${HEAP_SNAPSHOT_DIR}/asked.heapsnapshot`);
            releaseAll();
          }
          await allAsked;
          return allow;
        },
        expectation(i, name),
      );
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const mainAfter = mainThreadCpuUs();
  const elapsedMs = performance.now() - started;
  const gcCounts = await gcs();
  await stopHeapProfile();
  clearInterval(sampler);
  peak = Math.max(peak, rss());
  await close();
  // Through close(): what a host pays for the runs, the ending of their CLIs included (a turn
  // answers before its CLI's exit and the sweep after it, which may fall after the last verdict).
  const cpuThroughClose = process.cpuUsage(cpuBefore);
  const mainThroughClose = mainThreadCpuUs();
  const after = await settledRss();
  const newSpaceAfter = newSpaceBytes();
  const idle = await idleRss(() => newSpaceBytes() >= newSpaceAfter);
  const partsAfterIdle = rssParts();
  const failures = outcomes.filter((o) => !o.ok).map((o) => o.detail);
  console.log(
    JSON.stringify({
      runs: RUNS,
      correct: outcomes.length - failures.length,
      failures: failures.slice(0, 5),
      allInFlight: asked === RUNS,
      deltas: outcomes.reduce((sum, o) => sum + o.deltas, 0),
      beforeRss: before,
      beforeIdleRss: beforeIdle.rss,
      newSpaceBeforeIdle,
      peakRss: peak,
      afterRss: after,
      newSpaceBefore,
      newSpaceAfter,
      afterIdleRss: idle.rss,
      /** RssAnon and RssFile of `/proc/self/status`, bytes: at the same start, when every run had asked, once idle after. */
      anonBeforeIdle: partsBeforeIdle.anon,
      fileBeforeIdle: partsBeforeIdle.file,
      anonAllAsked: partsAllAsked.anon,
      fileAllAsked: partsAllAsked.file,
      anonAfterIdle: partsAfterIdle.anon,
      /** `process.memoryUsage()`'s JS parts at the same start and when every run had asked, bytes. */
      heapBeforeIdle,
      heapAllAsked,
      fileAfterIdle: partsAfterIdle.file,
      newSpaceAfterIdle: newSpaceBytes(),
      idleWaitMs: idle.waitedMs,
      elapsedMs,
      /** Garbage collections from the start of the runs to their end, by kind. */
      gcs: gcCounts,
      /** This process's user + system CPU from the start of the runs to their end, µs (the fake CLIs are other processes). */
      cpuUs: cpu.user + cpu.system,
      /** Of {@link cpuUs}, the main thread's (undefined where /proc has no schedstat); the rest ran on V8's and libuv's threads. */
      mainThreadCpuUs: mainBefore === undefined || mainAfter === undefined ? undefined : mainAfter - mainBefore,
      /** This process's CPU from the start of the runs until `close()` resolved, µs. */
      cpuThroughCloseUs: cpuThroughClose.user + cpuThroughClose.system,
      /** Of {@link cpuThroughCloseUs}, the main thread's. */
      mainThreadThroughCloseUs: mainBefore === undefined || mainThroughClose === undefined ? undefined : mainThroughClose - mainBefore,
      heapUsedBefore: heapBefore,
      heapUsedAfter: process.memoryUsage().heapUsed,
    }),
  );
}
