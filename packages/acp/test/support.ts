import { geminiTestEnv, startGeminiServer, type GeminiScriptRule, type GeminiServer, type GeminiTestEnv } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, type AgentEvent, type AgentOptions } from "adaptor";
import { gemini, type GeminiConfig } from "../src/index.js";

/** A scripted Gemini API server, an isolated gemini-cli environment and an Agent on the real binary. */
export interface GeminiHarness {
  readonly server: GeminiServer;
  readonly env: GeminiTestEnv;
  readonly agent: Agent;
  close(): Promise<void>;
}

/** The model the harness pins (`-m`), so no router call precedes a turn. */
export const GEMINI_TEST_MODEL = "gemini-2.5-flash";

export async function geminiHarness(rules: GeminiScriptRule[] = [], config: GeminiConfig = {}, options: AgentOptions = {}): Promise<GeminiHarness> {
  const server = await startGeminiServer({ rules });
  const env = await geminiTestEnv({ server });
  const agent = new Agent(gemini({ cwd: env.workDir, env: env.env, inheritEnv: false, model: GEMINI_TEST_MODEL, ...config }), {
    threadStore: new MemoryThreadStore(),
    ...options,
  });
  return {
    server,
    env,
    agent,
    async close() {
      await agent.close();
      await server.close();
      await env.cleanup();
    },
  };
}

export async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The pids from the stream's `process` spawn events. */
export function spawnedPids(events: readonly AgentEvent[]): number[] {
  return events.flatMap((event) => (event.type === "process" && event.kind === "spawn" && event.pid !== undefined ? [event.pid] : []));
}

/** True while a process with `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of live processes whose environment carries `marker` (to find every process an agent started). */
export async function processesWith(marker: string): Promise<number[]> {
  const { readdir, readFile } = await import("node:fs/promises");
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = await readFile(`/proc/${entry}/environ`, "latin1");
      if (environ.includes(marker)) pids.push(Number(entry));
    } catch {
      // gone or not ours
    }
  }
  return pids;
}
