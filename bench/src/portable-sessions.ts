// Portable sessions on the real claude and codex binaries: the session state a 20-turn thread
// stores per turn, and a resume on a fresh host (a new CLI home: the stored files are restored
// first) against a resume on the host that ran the previous turn (a new process, files in place).
import { claude } from "@adaptor/claude";
import { codex } from "@adaptor/codex";
import { claudeTestEnv, codexTestEnv, startAnthropicServer, startOpenAIServer } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";
import { fmt, type Benchmark, type Figure } from "./harness.js";
import { median, range } from "./pipeline/stats.js";

const TURNS = 20;
const ROUNDS = 5;

interface Host {
  readonly agent: Agent;
  close(): Promise<void>;
}

async function measure(name: string, host: () => Promise<Host>, store: MemoryThreadStore): Promise<Figure[]> {
  const local = await host();
  const opened: Host[] = [local];
  try {
    const added: number[] = [];
    let before = 0;
    for (let turn = 1; turn <= TURNS; turn++) {
      await local.agent.thread("bench").run(`turn ${turn}: summarise the repository in one sentence`);
      const record = (await store.resolve({ key: "bench" }))!;
      const bytes = (await store.sessionState!.read(record.id))!.bytes;
      added.push(bytes - before);
      before = bytes;
    }
    const time = async (agent: Agent, prompt: string, spawn: boolean): Promise<number> => {
      const started = performance.now();
      await agent.thread("bench").run(prompt, { spawn });
      return performance.now() - started;
    };
    const atHome: number[] = [];
    const fresh: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const other = await host();
      opened.push(other);
      const f = await time(other.agent, `fresh host ${round}`, false);
      const l = await time(local.agent, `local ${round}`, true); // restores the other host's turn first
      const l2 = await time(local.agent, `local again ${round}`, true); // files in place: a plain resume
      if (round === 0) continue;
      fresh.push(f);
      atHome.push(l2);
      void l;
    }
    const ms = (v: number) => fmt(v, 0);
    const later = added.slice(1);
    return [
      { label: `${name}: stored, first turn`, value: added[0]!, unit: "B", note: "gzip" },
      {
        label: `${name}: stored per later turn`,
        value: median(later),
        unit: "B",
        note: `median of turns 2–${TURNS}, min–max ${range(later, (v) => fmt(v, 0))} B`,
      },
      { label: `${name}: stored after ${TURNS} turns`, value: before, unit: "B" },
      {
        label: `${name}: resume on the same host (new process)`,
        value: median(atHome),
        unit: "ms",
        note: `baseline; min–max ${range(atHome, ms)} ms`,
      },
      {
        label: `${name}: resume on a fresh host (restore + new process)`,
        value: median(fresh),
        unit: "ms",
        note: `min–max ${range(fresh, ms)} ms`,
      },
      { label: `${name}: fresh host / same host`, value: median(fresh) / median(atHome), unit: "x" },
    ];
  } finally {
    for (const h of opened) await h.close();
  }
}

async function claudeSessions(): Promise<Figure[]> {
  const server = await startAnthropicServer();
  const store = new MemoryThreadStore();
  try {
    return await measure(
      "claude",
      async () => {
        const env = await claudeTestEnv({ server });
        const agent = new Agent(claude({ env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
          threadStore: store,
          cwd: env.workDir,
          workspace: "bench",
        });
        return { agent, close: async () => (await agent.close(), await env.cleanup()) };
      },
      store,
    );
  } finally {
    await server.close();
  }
}

async function codexSessions(): Promise<Figure[]> {
  const server = await startOpenAIServer({ rules: [] });
  const store = new MemoryThreadStore();
  try {
    return await measure(
      "codex",
      async () => {
        const env = await codexTestEnv({ server });
        const agent = new Agent(codex({ env: env.env, inheritEnv: false, model: env.model }), {
          threadStore: store,
          cwd: env.workDir,
          workspace: "bench",
        });
        return { agent, close: async () => (await agent.close(), await env.cleanup()) };
      },
      store,
    );
  } finally {
    await server.close();
  }
}

/** `pnpm bench sessions`: stored session state per turn and resume on a fresh vs the same host, real binaries. */
export const portableSessions: Benchmark = {
  name: `portable sessions: stored bytes per turn of a ${TURNS}-turn thread, resume on a fresh host vs the same host (medians of ${ROUNDS}), real binaries`,
  run: async () => [...(await claudeSessions()), ...(await codexSessions())],
};
