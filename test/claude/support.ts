import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv, type ScriptRule } from "@adaptor/testkit";
import { Agent, type AgentEvent, type AgentOptions } from "adaptor";
import { claude, type ClaudeConfig } from "../src/index.js";

/** A scripted server, an isolated claude environment and an Agent on the real binary. */
export interface Harness {
  readonly server: AnthropicServer;
  readonly env: ClaudeTestEnv;
  readonly agent: Agent;
  close(): Promise<void>;
}

export async function harness(
  rules: ScriptRule[] = [],
  config: ClaudeConfig = {},
  options: AgentOptions = {},
): Promise<Harness> {
  const server = await startAnthropicServer({ rules });
  const env = await claudeTestEnv({ server });
  const agent = new Agent(
    claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5", ...config }),
    options,
  );
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

/** The pid from the stream's `process` spawn event. */
export function spawnedPid(events: readonly AgentEvent[]): number | undefined {
  for (const event of events) if (event.type === "process" && event.kind === "spawn") return event.pid;
  return undefined;
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
