// First turn on a pre-warmed process (agent.prewarm() awaited beforehand) vs a cold first turn (the
// run spawns its CLI), on the real claude and codex binaries against the scripted model servers.
import { claude } from "@adaptor/claude";
import { codex } from "@adaptor/codex";
import { claudeTestEnv, codexTestEnv, startAnthropicServer, startOpenAIServer } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { fmt, type Benchmark, type Figure } from "./harness.js";
import { median, range } from "./pipeline/stats.js";

const ROUNDS = 5;

/** Per round (after a warm-up round): pre-warm and wait until ready, time a first turn on it, then time a cold first turn. */
async function measure(agent: Agent, name: string): Promise<Figure[]> {
  const time = async (prompt: string): Promise<{ ms: number; prewarmed: boolean }> => {
    const started = performance.now();
    let prewarmed = false;
    for await (const event of agent.stream(prompt)) {
      if (event.type === "notice" && event.message === "process reused" && event.data?.prewarmed === true) prewarmed = true;
    }
    return { ms: performance.now() - started, prewarmed };
  };
  const warm: number[] = [];
  const cold: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    if ((await agent.prewarm()) !== 1) throw new Error(`${name}: prewarm started no process`);
    const w = await time("first turn on a pre-warmed process");
    const c = await time("cold first turn");
    if (!w.prewarmed || c.prewarmed) throw new Error(`${name}: the warm turn did not take the pre-warmed process`);
    if (round === 0) continue;
    warm.push(w.ms);
    cold.push(c.ms);
  }
  const ms = (v: number) => fmt(v, 0);
  const w = median(warm);
  const c = median(cold);
  return [
    { label: `${name}: cold first turn (spawn)`, value: c, unit: "ms", note: `baseline; min–max ${range(cold, ms)} ms` },
    { label: `${name}: first turn on a pre-warmed process`, value: w, unit: "ms", note: `min–max ${range(warm, ms)} ms` },
    { label: `${name}: pre-warmed / cold`, value: w / c, unit: "x", note: "goal ≤ 0.3x" },
  ];
}

async function claudeFirstTurn(): Promise<Figure[]> {
  const server = await startAnthropicServer();
  const env = await claudeTestEnv({ server });
  const agent = new Agent(claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
  try {
    return await measure(agent, "claude");
  } finally {
    await agent.close();
    await server.close();
    await env.cleanup();
  }
}

async function codexFirstTurn(): Promise<Figure[]> {
  const server = await startOpenAIServer({ rules: [] });
  const env = await codexTestEnv({ server });
  const agent = new Agent(codex({ cwd: env.workDir, env: env.env, inheritEnv: false, model: env.model }));
  try {
    return await measure(agent, "codex");
  } finally {
    await agent.close();
    await server.close();
    await env.cleanup();
  }
}

/** `pnpm bench`: P2, a first turn on a pre-warmed process vs a cold one, real binaries. */
export const firstTurn: Benchmark = {
  name: `first turn: pre-warmed (agent.prewarm()) vs cold spawn, real binaries + scripted model (medians of ${ROUNDS})`,
  run: async () => [...(await claudeFirstTurn()), ...(await codexFirstTurn())],
};
