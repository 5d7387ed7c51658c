import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { whenToolResult, whenUserSays, type ScriptRule } from "@adaptor/testkit";
import { processGone } from "@adaptor/driver/kit";
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

/** True while a process with `pid` exists (it is not {@link processGone}). */
export function alive(pid: number): boolean {
  return !processGone(pid);
}

/** A rule that calls `name` with `input` when the prompt says `trigger`, and one that reports the result. */
export function callThenReport(trigger: string, name: string, input: Record<string, unknown>): ScriptRule[] {
  return [
    { when: whenUserSays(trigger), reply: { toolUse: { name, input } } },
    {
      when: whenToolResult(name),
      reply: (view) => ({ text: `${name} ${view.lastToolResult?.isError ? "error" : "ok"}: ${view.lastToolResult?.content ?? ""}` }),
    },
  ];
}

/** Paths of the transcript `<sessionId>.jsonl` in every project folder of a claude config dir. */
export function transcriptFiles(configDir: string, sessionId: string): string[] {
  const projects = join(configDir, "projects");
  if (!existsSync(projects)) return [];
  return readdirSync(projects).flatMap((dir) =>
    readdirSync(join(projects, dir))
      .filter((file) => file === `${sessionId}.jsonl`)
      .map((file) => join(projects, dir, file)),
  );
}

/** Every event of `stream`, in order, once it has ended. */
export async function drainEvents(stream: Stream): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
