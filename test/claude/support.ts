import type { ScriptRule } from "@adaptor/testkit";
import type { ClaudeConfig } from "@adaptor/claude";
import { Agent, type AgentEvent, type AgentOptions, type Stream } from "adaptor";
import { driverHarness, type DriverHarness } from "../../packages/claude/test/support.js";

/** A scripted server, an isolated claude environment and an Agent on the real binary. */
export interface Harness extends Omit<DriverHarness, "driver"> {
  readonly agent: Agent;
}

export async function harness(rules: ScriptRule[] = [], config: ClaudeConfig = {}, options: AgentOptions = {}): Promise<Harness> {
  const { server, env, driver, close } = await driverHarness(rules, config);
  const agent = new Agent(driver, options);
  return {
    server,
    env,
    agent,
    async close() {
      await agent.close();
      await close();
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

/** Every event of `stream`, in order, once it has ended. */
export async function drainEvents(stream: Stream): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
