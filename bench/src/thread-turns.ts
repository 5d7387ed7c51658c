import type { Agent } from "adaptor";
import type { Figure } from "./harness.js";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * Warm vs cold thread turns on `agent` (which must have a thread store): after a warm-up, the
 * median wall time of `turns` consecutive warm turns (the parked process is reused), then of
 * `turns` cold ones (`spawn: true`). Cold turns go last because each ends the parked process.
 * `coldLabel` says what a cold turn does for this CLI.
 */
export async function measureThreadTurns(agent: Agent, turns: number, coldLabel: string): Promise<Figure[]> {
  const thread = agent.thread("bench");
  await thread.run("warm-up");
  const time = async (spawn: boolean): Promise<number> => {
    const started = performance.now();
    await thread.run("turn", { spawn });
    return performance.now() - started;
  };
  const warm: number[] = [];
  const cold: number[] = [];
  for (let i = 0; i < turns; i++) warm.push(await time(false));
  for (let i = 0; i < turns; i++) cold.push(await time(true));
  const w = median(warm);
  const c = median(cold);
  return [
    { label: "warm turn (reused process)", value: w, unit: "ms", note: `median of ${turns}` },
    { label: `cold turn (${coldLabel})`, value: c, unit: "ms", note: `median of ${turns}` },
    { label: "cold / warm", value: c / w, unit: "x", note: "baseline: the warm turn, same run" },
  ];
}
