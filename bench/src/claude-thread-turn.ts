// Warm thread turn (the session's live claude process is reused) vs cold turn (a new process
// resumes the session), on the real claude binary against the scripted server, in one run.
import { claude } from "@adaptor/claude";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { claudeTestEnv, startAnthropicServer } from "@adaptor/testkit";
import { Agent } from "adaptor";
import type { Benchmark, Figure } from "./harness.js";
import { measureThreadTurns } from "./thread-turns.js";

/** Median wall time of `turns` warm and cold turns after a warm-up; the ratio is cold / warm. */
async function measure(turns: number): Promise<Figure[]> {
  const server = await startAnthropicServer();
  const env = await claudeTestEnv({ server });
  const agent = new Agent(claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: new MemoryThreadStore(),
  });
  try {
    return await measureThreadTurns(agent, turns, "spawn + --resume");
  } finally {
    await agent.close();
    await server.close();
    await env.cleanup();
  }
}

/** `pnpm bench`: a Claude thread turn on a reused process vs a freshly spawned one. */
export const claudeThreadTurn: Benchmark = {
  name: "claude thread turn: warm (reused process) vs cold (spawned), real binary + scripted model",
  run: () => measure(5),
};
