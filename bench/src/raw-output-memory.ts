// Raw output is bounded per run: one parked claude-protocol process serves 20 thread turns of
// 30 MB of stdout each (a fake CLI speaking stream-json, so the figure is the SDK's, not a model's).
// Before the bound, the process kept every byte in one string: 600 MB exceed V8's string limit.
import { chmodSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { claude } from "@adaptor/claude";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";
import type { Benchmark, Figure } from "./harness.js";

const TURNS = 20;
const TURN_BYTES = 30 * 1024 * 1024;
const MiB = 1024 * 1024;

// A full GC before each reading, so the figure is what stays, not garbage not yet collected.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function rssMiB(): number {
  return process.memoryUsage().rss / MiB;
}

async function measure(): Promise<Figure[]> {
  const command = fileURLToPath(new URL("./fixtures/big-turn-claude.mjs", import.meta.url));
  chmodSync(command, 0o755);
  const agent = new Agent(
    claude({ command, inheritEnv: false, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", BIG_TURN_BYTES: String(TURN_BYTES) } }),
    // The fake CLI writes no transcript, so there is no session state to carry between hosts.
    { threadStore: new MemoryThreadStore({ sessionState: false }) },
  );
  const rss: number[] = [];
  const pids = new Set<number>();
  let rawBytes = 0;
  let truncated = 0;
  try {
    const thread = agent.thread("raw-output-memory");
    for (let turn = 1; turn <= TURNS; turn++) {
      const stream = thread.stream(`turn ${turn}`);
      for await (const event of stream)
        if (event.type === "process" && event.kind === "spawn" && event.pid !== undefined) pids.add(event.pid);
      const result = await stream.result();
      const raw = result.raw();
      rawBytes = Math.max(rawBytes, Buffer.byteLength(raw.stdout));
      if (raw.stdoutTruncated === true && (raw.stdoutBytes ?? 0) >= TURN_BYTES) truncated++;
      gc();
      rss.push(rssMiB());
      process.stderr.write(`  turn ${turn}: rss ${rss.at(-1)?.toFixed(0)} MiB\n`);
    }
  } finally {
    await agent.close();
  }
  const first = rss[0] ?? Number.NaN;
  const last = rss.at(-1) ?? Number.NaN;
  const peak = Math.max(...rss);
  return [
    {
      label: "turns served by one parked process",
      value: TURNS,
      unit: "turns",
      note: `${pids.size} process(es) spawned, ${TURN_BYTES / MiB} MiB stdout each`,
    },
    { label: "turns whose raw() was bounded and counted", value: truncated, unit: "turns" },
    { label: "largest raw().stdout kept", value: rawBytes / 1024, unit: "KiB", note: "bound: 1 MiB" },
    { label: "host RSS after turn 1", value: first, unit: "MiB" },
    { label: "host RSS after turn 20", value: last, unit: "MiB" },
    { label: "host RSS peak after a turn", value: peak, unit: "MiB" },
    { label: "RSS after turn 20 / after turn 1", value: last / first, unit: "x", note: "baseline: turn 1, same run; flat ≈ 1" },
  ];
}

/** `pnpm bench`: host memory across many large turns on one reused process. */
export const rawOutputMemory: Benchmark = {
  name: "raw output memory: 20 turns x 30 MiB stdout on one parked process (fake claude CLI)",
  run: measure,
};
