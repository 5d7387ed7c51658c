// Cold first turn through the SDK against a bare client of the same binary, each a fresh node
// process timed from its own start (so the SDK's module loading counts), interleaved round by round.
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fmt, type Figure } from "../harness.js";
import { FIXTURES, bundleProgram } from "../pipeline/consumer-process.js";
import { median, range } from "../pipeline/stats.js";

/** What the measured processes are told: where to run, the CLI's environment, model and prompt. */
export interface FirstTurnConfig {
  /** The CLI executable (resolved here: the bundled client runs from a temp folder). */
  readonly command: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly model: string;
  readonly prompt: string;
}

interface Report {
  /** ms from the process's start to the SDK loaded (SDK client only). */
  readonly loadedMs?: number;
  /** ms from the process's start to the CLI's spawn. */
  readonly spawnMs: number;
  /**
   * ms from the process's start to the turn's terminal: the SDK's last event before the exit
   * (codex's `turn/completed`; for claude the model response's last text delta, the `result` line
   * having no event of its own), and the same point in the bare clients (claude's last text delta,
   * codex's `turn/completed`), so that claude's own time up to its `result` line counts after the
   * terminal in every row.
   */
  readonly terminalMs: number;
  /** ms from the process's start to the end of the turn. */
  readonly endMs: number;
  /** The process's own CPU up to then, µs (the CLI is another process). */
  readonly cpuUs: number;
  /** `performance.timeOrigin` of the process (ms since the epoch): the zero of its other times. */
  readonly timeOrigin: number;
  /** ms from the process's start to the CLI's first stdout line (bare) or the turn's first event after the spawn (SDK). */
  readonly firstMs: number;
  /** ms from the process's start to the run's Result resolved (SDK only; the bare clients have none). */
  readonly resultMs?: number;
  /** Filled in here: ms from the process's start to the turn's first model request at the scripted server. */
  requestMs?: number;
  /** Filled in here: ms from the process's start to its exit, as this process saw it. */
  exitMs?: number;
  readonly launch?: { readonly argv: string[]; readonly env: Record<string, string> };
  /** Filled in here with FIRST_TURN_COVERAGE=1 (SDK clients): how much of the client's code ran when. */
  coverage?: CodeRun;
}

/** Characters of the client's own code (bundle or installed packages): loaded, and in functions called before and only after the spawn. */
interface CodeRun {
  readonly loaded: number;
  readonly beforeSpawn: number;
  readonly onlyAfterSpawn: number;
  /** ES modules of the client's own code loaded when the CLI was spawned, and by the process's exit. */
  readonly modulesAtSpawn: number;
  readonly modules: number;
  /**
   * Functions of the client's own code called while its imports loaded (module bodies' calls), then
   * from there to the spawn (not called while loading), and first called after the spawn.
   */
  readonly functionsAtLoad: number;
  readonly functionsBeforeSpawn: number;
  readonly functionsOnlyAfterSpawn: number;
}

/** One script's part of `fixtures/coverage-at-spawn.mjs`'s file. */
interface CoveredScript {
  readonly url: string;
  readonly size: number;
  readonly ranges: [number, number][];
}

/** Characters covered by `ranges` (a called function nested in another called one counts once). */
function covered(ranges: readonly (readonly [number, number])[]): number {
  let end = -1;
  let total = 0;
  for (const [start, stop] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (stop <= end) continue;
    total += stop - Math.max(start, end);
    end = stop;
  }
  return total;
}

/** Sums a coverage file of one run over its scripts. */
function codeRun(file: string): CodeRun {
  const parts = JSON.parse(readFileSync(file, "utf8")) as { loaded?: CoveredScript[]; spawn?: CoveredScript[]; exit?: CoveredScript[] };
  const scripts = new Map<string, { size: number; load: [number, number][]; before: [number, number][]; after: [number, number][] }>();
  for (const [part, list] of [
    ["load", parts.loaded ?? []],
    ["before", parts.spawn ?? []],
    ["after", parts.exit ?? []],
  ] as const)
    for (const script of list) {
      const entry = scripts.get(script.url) ?? { size: script.size, load: [], before: [], after: [] };
      entry[part].push(...script.ranges);
      scripts.set(script.url, entry);
    }
  let loaded = 0;
  let beforeSpawn = 0;
  let whole = 0;
  let functionsAtLoad = 0;
  let functionsBeforeSpawn = 0;
  let functionsOnlyAfterSpawn = 0;
  const keys = (ranges: readonly [number, number][]) => new Set(ranges.map(([start, stop]) => `${start}:${stop}`));
  for (const { size, load, before, after } of scripts.values()) {
    loaded += size;
    beforeSpawn += covered([...load, ...before]);
    whole += covered([...load, ...before, ...after]);
    const atLoad = keys(load);
    const untilSpawn = new Set([...atLoad, ...keys(before)]);
    functionsAtLoad += atLoad.size;
    functionsBeforeSpawn += untilSpawn.size - atLoad.size;
    functionsOnlyAfterSpawn += [...keys(after)].filter((key) => !untilSpawn.has(key)).length;
  }
  return {
    loaded,
    beforeSpawn,
    onlyAfterSpawn: whole - beforeSpawn,
    modulesAtSpawn: new Set([...(parts.loaded ?? []), ...(parts.spawn ?? [])].map((script) => script.url)).size,
    modules: scripts.size,
    functionsAtLoad,
    functionsBeforeSpawn,
    functionsOnlyAfterSpawn,
  };
}

/**
 * `FIRST_TURN_COVERAGE=1`: each SDK client runs with `fixtures/coverage-at-spawn.mjs` preloaded
 * (V8 precise coverage, so its times are not the measurement's: use it apart from timing runs),
 * and the SDK rows say how much of the client's code ran before the CLI's spawn, only after it, and
 * not at all: what a cold path that loads only what precedes the spawn would still compile first.
 */
const COVERAGE = process.env.FIRST_TURN_COVERAGE === "1";

/**
 * `BENCH_CPU_PROFILE=<dir>`: each SDK client writes a V8 CPU profile (100 µs samples) to
 * `<dir>/<claude|codex>/`, and its trace beside it. `FIRST_TURN_TRACE_DIR=<dir>`: the trace alone, to
 * `<dir>/<claude|codex>/` (each event's time, CPU so far and monotonic time, the clock of a profile's
 * samples: `FIRST_TURN_TRACE=1` in the client).
 */
const PROFILE_DIR = process.env.BENCH_CPU_PROFILE;
const TRACE_DIR = PROFILE_DIR ?? process.env.FIRST_TURN_TRACE_DIR;
let traced = 0;

function runNode(args: readonly string[], env: Record<string, string>, trace?: string, coverage = false): Promise<Report> {
  const profileArgs =
    trace !== undefined && PROFILE_DIR !== undefined ? ["--cpu-prof", "--cpu-prof-interval", "100", "--cpu-prof-dir", trace] : [];
  if (trace !== undefined) env = { ...env, FIRST_TURN_TRACE: "1" };
  const coverageDir = coverage ? mkdtempSync(join(tmpdir(), "adaptor-first-turn-coverage-")) : undefined;
  const coverageFile = coverageDir === undefined ? undefined : join(coverageDir, "coverage.json");
  const coverageArgs = coverageFile === undefined ? [] : ["--import", pathToFileURL(join(FIXTURES, "coverage-at-spawn.mjs")).href];
  if (coverageFile !== undefined) env = { ...env, FIRST_TURN_COVERAGE_OUT: coverageFile };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...profileArgs, ...coverageArgs, ...args],
      { env: { ...process.env, ...env }, maxBuffer: 1 << 24 },
      (error, stdout, stderr) => {
        if (trace !== undefined) writeFileSync(join(trace, `run-${String(++traced).padStart(3, "0")}.trace`), stderr);
        if (error) {
          reject(
            new Error(
              `${args.join(" ")} failed (${String(error.code)}): ${stderr.trim().split("\n").slice(-12).join(" | ") || error.message}`,
              { cause: error },
            ),
          );
          return;
        }
        const report = JSON.parse(stdout.trim().split("\n").pop() ?? "") as Report;
        const exitMs = Date.now() - report.timeOrigin;
        try {
          resolve({ ...report, exitMs, ...(coverageFile === undefined ? {} : { coverage: codeRun(coverageFile) }) });
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        } finally {
          if (coverageDir !== undefined) rmSync(coverageDir, { recursive: true, force: true });
        }
      },
    );
  });
}

function traceDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The repository's root (bench/src/first-turn → ../../..). */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/**
 * Builds the packages as they are published (`scripts/build.mjs`: declarations and the bundled
 * JavaScript each package's `exports` default condition names), once per bench process, so the
 * installed-form client loads what a `pnpm pack:all` tarball would ship.
 */
let built = false;
function buildPackages(): void {
  if (built) return;
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  built = true;
}

/**
 * `FIRST_TURN_INSTALLS=<dir>[,<dir>…]`: more installed-form rows, each running the client from a
 * project folder where the packed tarballs are installed (`npm install <tarballs>`), e.g. the
 * tarballs of two versions side by side.
 */
const INSTALLS = (process.env.FIRST_TURN_INSTALLS ?? "").split(",").filter((dir) => dir !== "");

/**
 * `FIRST_TURN_PROGRAMS=<file>[,<file>…]`: more SDK rows, each running that client program as it is,
 * with `<cli>` in its path replaced by the CLI measured (e.g. another tree's bundled client, written
 * under that tree's `bench/node_modules/.bundles`), so two versions' bundled clients alternate in
 * one sitting.
 */
const PROGRAMS = (process.env.FIRST_TURN_PROGRAMS ?? "").split(",").filter((file) => file !== "");

/**
 * `FIRST_TURN_SPLIT=1`: two more bare-client rows, each also importing the SDK as installed
 * (`FIRST_TURN_BARE_LOAD`): before its spawn (the SDK's load without its run path or exit wait) and
 * right after it, while the CLI starts (what a cold path that spawned before loading the rest would
 * pay at most for the load).
 */
const SPLIT = process.env.FIRST_TURN_SPLIT === "1";

/**
 * Rounds of one SDK cold first turn in each of two forms (the SDK bundled into the client; the
 * SDK as installed, its packages' built output loaded through their `exports`), one bare-client
 * first turn that ends at the terminal and one that also waits for the CLI's exit after closing
 * its stdin, as the SDK's one-shot turn does (the order rotating), after a warm-up round whose SDK
 * run also reports the CLI's argv and environment for the bare clients.
 */
export async function coldVsBare(
  name: "claude" | "codex",
  config: FirstTurnConfig,
  rounds: number,
  /** Arrival times (ms since the epoch) of the model requests the scripted server has seen so far. */
  requestTimes: () => readonly number[],
): Promise<Figure[]> {
  buildPackages();
  // The client imports `adaptor` and this CLI's driver only, as a host running that CLI does.
  const bundle = await bundleProgram(`first-turn/sdk-first-turn-${name}.ts`);
  const installedProgram = await bundleProgram(`first-turn/sdk-first-turn-${name}.ts`, { installed: true });
  try {
    const configEnv = { FIRST_TURN_CONFIG: JSON.stringify(config) };
    const sdkRun = (captureLaunch: boolean, script = bundle.script) =>
      runNode(
        [script, name],
        { ...configEnv, ...(captureLaunch ? { FIRST_TURN_LAUNCH: "1" } : {}) },
        TRACE_DIR === undefined ? undefined : traceDir(join(TRACE_DIR, name)),
        COVERAGE,
      );
    const warm = await sdkRun(true);
    if (!warm.launch) throw new Error(`${name}: the SDK run reported no launch`);
    const launchEnv = { ...configEnv, FIRST_TURN_LAUNCH: JSON.stringify(warm.launch) };
    const bareRun = () => runNode([join(FIXTURES, "bare-first-turn.mjs"), name], launchEnv);
    const bareExitRun = () => runNode([join(FIXTURES, "bare-first-turn.mjs"), name], { ...launchEnv, FIRST_TURN_BARE_EXIT: "1" });
    const bareLoadRun = (when: "before" | "after") => () =>
      runNode([join(FIXTURES, "bare-first-turn.mjs"), name], { ...launchEnv, FIRST_TURN_BARE_LOAD: when });
    await bareRun();
    await bareExitRun();
    await sdkRun(false, installedProgram.script);
    const installs = INSTALLS.map((dir) => {
      const script = join(dir, `adaptor-bench-first-turn-${process.pid}.mjs`);
      copyFileSync(installedProgram.script, script);
      return { dir, script, samples: [] as Report[] };
    });
    for (const install of installs) await sdkRun(false, install.script);
    const programs = PROGRAMS.map((file) => ({ script: file.replaceAll("<cli>", name), samples: [] as Report[] }));
    for (const program of programs) await sdkRun(false, program.script);
    const sdk: Report[] = [];
    const installed: Report[] = [];
    const bare: Report[] = [];
    const bareExit: Report[] = [];
    const bareLoadBefore: Report[] = [];
    const bareLoadAfter: Report[] = [];
    const forms = [
      { samples: bare, run: bareRun },
      { samples: sdk, run: () => sdkRun(false) },
      { samples: bareExit, run: bareExitRun },
      { samples: installed, run: () => sdkRun(false, installedProgram.script) },
      ...installs.map((install) => ({ samples: install.samples, run: () => sdkRun(false, install.script) })),
      ...programs.map((program) => ({ samples: program.samples, run: () => sdkRun(false, program.script) })),
      ...(SPLIT
        ? [
            { samples: bareLoadBefore, run: bareLoadRun("before") },
            { samples: bareLoadAfter, run: bareLoadRun("after") },
          ]
        : []),
    ];
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < forms.length; k++) {
        const form = forms[(round + k) % forms.length]!;
        const seen = requestTimes().length;
        const report = await form.run();
        const first = requestTimes()[seen];
        form.samples.push(first === undefined ? report : { ...report, requestMs: first - report.timeOrigin });
      }
    }
    const ms = (v: number) => fmt(v, 0);
    const bareMs = median(bare.map((r) => r.endMs));
    const bareExitMs = median(bareExit.map((r) => r.endMs));

    const cpu = (reports: Report[]) => median(reports.map((r) => r.cpuUs / 1000));
    /** The median of the SDK's time over `baseline`'s, round by round (the runs of a round are next to each other, so under the same load). */
    const paired = (reports: Report[], baseline: Report[]) => median(reports.map((r, i) => r.endMs / baseline[i]!.endMs));
    /** Where the time went: medians of spawn, spawn → terminal, terminal → end. */
    const phases = (reports: Report[]) =>
      `spawn at ${ms(median(reports.map((r) => r.spawnMs)))} ms, then ${ms(median(reports.map((r) => r.terminalMs - r.spawnMs)))} ms to the terminal, ${ms(
        median(reports.map((r) => r.endMs - r.terminalMs)),
      )} ms after it`;
    /** Medians of each milestone, ms from the process's start. */
    const timeline = (reports: Report[]) => {
      const at = (pick: (r: Report) => number | undefined) => {
        const values = reports.map(pick).filter((v): v is number => v !== undefined);
        return values.length === 0 ? "—" : ms(median(values));
      };
      return `timeline (medians, ms from process start): loaded ${at((r) => r.loadedMs)}, spawn ${at((r) => r.spawnMs)}, first line/event ${at(
        (r) => r.firstMs,
      )}, model request ${at((r) => r.requestMs)}, terminal ${at((r) => r.terminalMs)}, turn end ${at((r) => r.endMs)}, Result ${at(
        (r) => r.resultMs,
      )}, process exit ${at((r) => r.exitMs)}`;
    };
    /** With FIRST_TURN_COVERAGE=1: medians of how much of the client's code ran when, in kB (1,000 characters), and counts of its modules and functions. */
    const codeRuns = (reports: Report[]) => {
      const runs = reports.map((r) => r.coverage).filter((c): c is CodeRun => c !== undefined);
      if (runs.length === 0) return "";
      const kb = (pick: (c: CodeRun) => number) => fmt(median(runs.map(pick)) / 1000, 0);
      const count = (pick: (c: CodeRun) => number) => fmt(median(runs.map(pick)), 0);
      return `; code (FIRST_TURN_COVERAGE, medians, kB): loaded ${kb((c) => c.loaded)}, in functions called before the spawn ${kb(
        (c) => c.beforeSpawn,
      )}, only after it ${kb((c) => c.onlyAfterSpawn)}, never ${kb((c) => c.loaded - c.beforeSpawn - c.onlyAfterSpawn)}; ES modules of its own loaded at the spawn ${count(
        (c) => c.modulesAtSpawn,
      )}, by the exit ${count((c) => c.modules)}; functions called while loading ${count((c) => c.functionsAtLoad)}, then before the spawn ${count(
        (c) => c.functionsBeforeSpawn,
      )}, first after it ${count((c) => c.functionsOnlyAfterSpawn)}`;
    };
    /** Median of when the SDK was loaded, ms from the process's start ("—" when loaded after the spawn). */
    const loadedAt = (reports: Report[]) => {
      const values = reports.map((r) => r.loadedMs).filter((v): v is number => v !== undefined);
      return values.length === 0 ? "—" : ms(median(values));
    };
    const sdkRow = (form: string, reports: Report[]): Figure => {
      const sdkMs = median(reports.map((r) => r.endMs));
      return {
        label: `${name}: ${form}, process start to turn end`,
        value: sdkMs,
        unit: "ms",
        note: `${fmt(sdkMs / bareMs, 2)}x the bare client (goal ≤ 1.05x), ${fmt(sdkMs / bareExitMs, 2)}x the one waiting for the exit; round by round (median of the rounds' ratios) ${fmt(paired(reports, bare), 2)}x and ${fmt(paired(reports, bareExit), 2)}x; min–max ${range(
          reports.map((r) => r.endMs),
          ms,
        )} ms; SDK loaded at ${loadedAt(reports)} ms; client CPU ${ms(cpu(reports))} ms; ${phases(reports)}; ${timeline(reports)}${codeRuns(reports)}`,
      };
    };
    return [
      {
        label: `${name}: bare client, process start to turn end`,
        value: bareMs,
        unit: "ms",
        note: `baseline; min–max ${range(
          bare.map((r) => r.endMs),
          ms,
        )} ms; client CPU ${ms(cpu(bare))} ms; ${phases(bare)}; ${timeline(bare)}`,
      },
      {
        label: `${name}: bare client waiting for the CLI's exit, process start to exit`,
        value: bareExitMs,
        unit: "ms",
        note: `stdin closed at the result line (claude) or turn/completed (codex); ${fmt(bareExitMs / bareMs, 2)}x the bare client; min–max ${range(
          bareExit.map((r) => r.endMs),
          ms,
        )} ms; client CPU ${ms(cpu(bareExit))} ms; ${phases(bareExit)}; ${timeline(bareExit)}`,
      },
      sdkRow("Agent cold first turn, SDK bundled into the client", sdk),
      sdkRow("Agent cold first turn, SDK as installed (packages' built output through their exports)", installed),
      ...installs.map((install) => sdkRow(`Agent cold first turn, SDK installed in ${install.dir}`, install.samples)),
      ...programs.map((program) => sdkRow(`Agent cold first turn, client ${program.script}`, program.samples)),
      ...(SPLIT
        ? [
            sdkRow("bare client importing the SDK as installed before its spawn", bareLoadBefore),
            sdkRow("bare client importing the SDK as installed right after its spawn", bareLoadAfter),
          ]
        : []),
    ];
  } finally {
    bundle.cleanup();
    installedProgram.cleanup();
    for (const dir of INSTALLS) rmSync(join(dir, `adaptor-bench-first-turn-${process.pid}.mjs`), { force: true });
  }
}
