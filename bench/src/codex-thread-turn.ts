// Warm thread turn (the thread's live codex app-server process is reused: just a turn/start) vs cold
// turn (a new process: initialize + thread/resume + turn/start), on the real codex binary against
// the scripted OpenAI Responses server, in one run.
import { codex } from "@adaptor/codex";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { codexTestEnv, startOpenAIServer } from "@adaptor/testkit";
import { Agent } from "adaptor";
import type { Benchmark, Figure } from "./harness.js";
import { measureThreadTurns } from "./thread-turns.js";

/** Median wall time of `turns` warm and cold turns after a warm-up; the ratio is cold / warm. */
async function measure(turns: number): Promise<Figure[]> {
  const server = await startOpenAIServer({ rules: [] });
  const env = await codexTestEnv({ server });
  const agent = new Agent(codex({ cwd: env.workDir, env: env.env, inheritEnv: false, model: env.model }), {
    threadStore: new MemoryThreadStore(),
  });
  try {
    return await measureThreadTurns(agent, turns, "spawn + thread/resume");
  } finally {
    await agent.close();
    await server.close();
    await env.cleanup();
  }
}

/** `pnpm bench`: a Codex thread turn on a reused app-server process vs a freshly spawned one. */
export const codexThreadTurn: Benchmark = {
  name: "codex thread turn: warm (reused process) vs cold (spawned), real binary + scripted model",
  run: () => measure(5),
};
