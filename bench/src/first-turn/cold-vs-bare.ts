// Cold first turn through the SDK against a bare client of the same binary, each a fresh node
// process timed from its own start (so the SDK's module loading counts), interleaved round by round.
import { execFile } from "node:child_process";
import { join } from "node:path";
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
  /** ms from the process's start to the end of the turn. */
  readonly endMs: number;
  /** The process's own CPU up to then, µs (the CLI is another process). */
  readonly cpuUs: number;
  readonly launch?: { readonly argv: string[]; readonly env: Record<string, string> };
}

function runNode(args: readonly string[], env: Record<string, string>): Promise<Report> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { env: { ...process.env, ...env }, maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      if (error) {
        reject(
          new Error(
            `${args.join(" ")} failed (${String(error.code)}): ${stderr.trim().split("\n").slice(-12).join(" | ") || error.message}`,
            { cause: error },
          ),
        );
        return;
      }
      resolve(JSON.parse(stdout.trim().split("\n").pop() ?? "") as Report);
    });
  });
}

/**
 * Rounds of one SDK cold first turn and one bare-client first turn (order alternating), after a
 * warm-up round whose SDK run also reports the CLI's argv and environment for the bare client.
 */
export async function coldVsBare(name: "claude" | "codex", config: FirstTurnConfig, rounds: number): Promise<Figure[]> {
  const bundle = await bundleProgram("first-turn/sdk-first-turn.ts");
  try {
    const configEnv = { FIRST_TURN_CONFIG: JSON.stringify(config) };
    const sdkRun = (captureLaunch: boolean) =>
      runNode([bundle.script, name], { ...configEnv, ...(captureLaunch ? { FIRST_TURN_LAUNCH: "1" } : {}) });
    const warm = await sdkRun(true);
    if (!warm.launch) throw new Error(`${name}: the SDK run reported no launch`);
    const launchEnv = { ...configEnv, FIRST_TURN_LAUNCH: JSON.stringify(warm.launch) };
    const bareRun = () => runNode([join(FIXTURES, "bare-first-turn.mjs"), name], launchEnv);
    await bareRun();
    const sdk: Report[] = [];
    const bare: Report[] = [];
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        bare.push(await bareRun());
        sdk.push(await sdkRun(false));
      } else {
        sdk.push(await sdkRun(false));
        bare.push(await bareRun());
      }
    }
    const ms = (v: number) => fmt(v, 0);
    const bareMs = median(bare.map((r) => r.endMs));
    const sdkMs = median(sdk.map((r) => r.endMs));
    const cpu = (reports: Report[]) => median(reports.map((r) => r.cpuUs / 1000));
    return [
      {
        label: `${name}: bare client, process start to turn end`,
        value: bareMs,
        unit: "ms",
        note: `baseline; min–max ${range(
          bare.map((r) => r.endMs),
          ms,
        )} ms; client CPU ${ms(cpu(bare))} ms`,
      },
      {
        label: `${name}: Agent cold first turn, process start to turn end`,
        value: sdkMs,
        unit: "ms",
        note: `${fmt(sdkMs / bareMs, 2)}x the bare client (goal ≤ 1.05x); min–max ${range(
          sdk.map((r) => r.endMs),
          ms,
        )} ms; SDK loaded at ${ms(median(sdk.map((r) => r.loadedMs ?? 0)))} ms; client CPU ${ms(cpu(sdk))} ms`,
      },
    ];
  } finally {
    bundle.cleanup();
  }
}
