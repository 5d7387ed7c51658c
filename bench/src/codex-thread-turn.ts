// Warm thread turn (the thread's live codex app-server process is reused: just a turn/start) vs cold
// turn (a new process: initialize + thread/resume + turn/start), on the real codex binary against
// the scripted OpenAI Responses server, in one run.
import { codex } from "@adaptor/codex";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { codexTestEnv, startOpenAIServer } from "@adaptor/testkit";
import { Agent } from "adaptor";
import type { Benchmark, Figure } from "./harness.js";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Median wall time of `turns` warm and cold turns after a warm-up; the ratio is cold / warm. */
async function measure(turns: number): Promise<Figure[]> {
  const server = await startOpenAIServer({ rules: [] });
  const env = await codexTestEnv({ server });
  const agent = new Agent(codex({ cwd: env.workDir, env: env.env, inheritEnv: false, model: env.model }), {
    threadStore: new MemoryThreadStore(),
  });
  try {
    const thread = agent.thread("bench");
    await thread.run("warm-up");
    const time = async (spawn: boolean): Promise<number> => {
      const started = performance.now();
      await thread.run("turn", { spawn });
      return performance.now() - started;
    };
    // Consecutive warm turns reuse the parked process; a cold turn ends it, so cold turns go last.
    const warm: number[] = [];
    const cold: number[] = [];
    for (let i = 0; i < turns; i++) warm.push(await time(false));
    for (let i = 0; i < turns; i++) cold.push(await time(true));
    const w = median(warm);
    const c = median(cold);
    return [
      { label: "warm turn (reused process)", value: w, unit: "ms", note: `median of ${turns}` },
      { label: "cold turn (spawn + thread/resume)", value: c, unit: "ms", note: `median of ${turns}` },
      { label: "cold / warm", value: c / w, unit: "x", note: "baseline: the warm turn, same run" },
    ];
  } finally {
    await agent.close();
    await server.close();
    await env.cleanup();
  }
}

/** `pnpm bench`: a Codex thread turn on a reused app-server process vs a freshly spawned one. */
export const codexThreadTurn: Benchmark = {
  name: "codex thread turn: warm (reused process) vs cold (spawned), real binary + scripted model",
  run: () => measure(7),
};
