// One measured process of the cold-first-turn benchmark, the part both CLIs share: the entry
// (`sdk-first-turn-claude.ts` or `sdk-first-turn-codex.ts`) imports `adaptor` and its one driver, as
// a host that runs that CLI does, and calls firstTurn(), which makes an Agent with the driver and
// runs one first turn (the run spawns the CLI). Prints one JSON line:
// ms from this process's start to the SDK being loaded, to the CLI's spawn, to the turn's terminal
// (its last event before the process's exit) and to the turn's end (its last event), this
// process's CPU (µs) up to then, and the spawned CLI's argv and environment (read from /proc at its
// spawn) so that the bare client can start the same binary the same way.
import { readFileSync } from "node:fs";
import { Agent, type Driver } from "adaptor";

const loadedMs = performance.now();
// FIRST_TURN_COVERAGE=1 (`fixtures/coverage-at-spawn.mjs` preloaded): what ran until now is the load's.
(globalThis as { [key: symbol]: (() => void) | undefined })[Symbol.for("adaptor.bench.firstTurnLoaded")]?.();
/** This process's CPU so far (user + system), ms. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
if (process.env.FIRST_TURN_TRACE === "1")
  process.stderr.write(`${loadedMs.toFixed(0)} ms cpu ${cpuMs().toFixed(0)} ms hr ${process.hrtime.bigint() / 1000n} loaded\n`);
const config = JSON.parse(process.env.FIRST_TURN_CONFIG ?? "{}") as {
  command: string;
  cwd: string;
  env: Record<string, string>;
  model: string;
  prompt: string;
};
/** The driver options every measured run gets. */
interface FirstTurnOptions {
  readonly command: string;
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly inheritEnv: false;
  readonly model: string;
}
let launch: { argv: string[]; env: Record<string, string> } | undefined;

/** The process's argv and environment, as the kernel has them. */
function readLaunch(pid: number): { argv: string[]; env: Record<string, string> } | undefined {
  try {
    const split = (file: string) =>
      readFileSync(`/proc/${pid}/${file}`, "utf8")
        .split("\0")
        .filter((part) => part !== "");
    const env = Object.fromEntries(
      split("environ").map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
    );
    return { argv: split("cmdline"), env };
  } catch {
    return undefined;
  }
}

let spawnMs: number | undefined;
/** The turn's first event after the spawn. */
let firstMs: number | undefined;
/**
 * When the turn's last event before the process's exit and the run's end arrived: codex's
 * `turn/completed`; claude has no event for its `result` line, so its last is the model response
 * before it (what claude does between the two counts as after the terminal here).
 */
let terminalMs: number | undefined;
let resultMs: number | undefined;

async function turn(agent: Agent): Promise<number> {
  const stream = agent.stream(config.prompt);
  for await (const event of stream) {
    if (event.type === "process" && event.kind === "spawn") spawnMs ??= performance.now();
    else if (spawnMs !== undefined) firstMs ??= performance.now();
    if (event.type !== "process" && event.type !== "run-finished") terminalMs = performance.now();
    // FIRST_TURN_TRACE=1: when each event arrived, for the profile.
    if (process.env.FIRST_TURN_TRACE === "1")
      process.stderr.write(
        `${performance.now().toFixed(0)} ms cpu ${cpuMs().toFixed(0)} ms hr ${process.hrtime.bigint() / 1000n} ${event.type} ${"kind" in event ? String(event.kind) : ""} ${"message" in event ? String(event.message) : ""}\n`,
      );
    // An exec'd binary may not have replaced the spawned process yet: the bare client reads this once per run.
    if (event.type === "process" && event.kind === "spawn" && event.pid !== undefined && process.env.FIRST_TURN_LAUNCH === "1")
      launch = readLaunch(event.pid);
  }
  const end = performance.now();
  await stream.result(); // a failed turn fails the measurement
  resultMs = performance.now();
  return end;
}

/** Runs the measured first turn with the driver `makeDriver` makes, and prints the report. */
export async function firstTurn(makeDriver: (options: FirstTurnOptions) => Driver): Promise<void> {
  const agent = new Agent(
    makeDriver({ command: config.command, cwd: config.cwd, env: config.env, inheritEnv: false, model: config.model }),
  );
  // Where a run that never ends stopped (node exits 13 when nothing is left to wait for): on stderr.
  process.stderr.write("turn started\n");
  const endMs = await turn(agent);
  process.stderr.write(`${performance.now().toFixed(0)} ms cpu ${cpuMs().toFixed(0)} ms turn ended\n`);
  const u = process.resourceUsage();
  await agent.close();
  process.stderr.write(`${performance.now().toFixed(0)} ms cpu ${cpuMs().toFixed(0)} ms agent closed\n`);
  console.log(
    JSON.stringify({
      timeOrigin: performance.timeOrigin,
      loadedMs,
      spawnMs,
      firstMs,
      terminalMs,
      endMs,
      resultMs,
      cpuUs: u.userCPUTime + u.systemCPUTime,
      ...(launch ? { launch } : {}),
    }),
  );
}
