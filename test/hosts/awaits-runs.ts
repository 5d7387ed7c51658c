// A host program whose only work is awaiting the SDK at its top level: pre-warm, a first turn on
// the pre-warmed process, thread turns on a parked-then-reused process (each reply delayed by the
// parent's scripted model, so the run is pending while nothing of the host's own waits), a turn
// that ends the parked process (`spawn: true`), then close(). Prints one line per step done. A
// window where a run (or close) is pending without anything holding the event loop makes Node
// exit with code 13 ("unsettled top-level await") before the last line.
import { gemini } from "@adaptor/acp";
import { claude } from "@adaptor/claude";
import { codex } from "@adaptor/codex";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";

/** What the parent passes in `ADAPTOR_HOST`. */
export interface AwaitingHostConfig {
  readonly driver: "claude" | "codex" | "gemini";
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Added to every prompt: the scripted model's delay directive (`SLOW_MS <n>`). */
  readonly slow: string;
  /** Only one cold first turn (the run spawns its CLI), then close(). */
  readonly coldOnly?: boolean;
}

const config = JSON.parse(process.env.ADAPTOR_HOST ?? "{}") as AwaitingHostConfig;
const common = { cwd: config.cwd, env: config.env, inheritEnv: false as const };
const driver =
  config.driver === "claude"
    ? claude({ ...common, model: "claude-sonnet-4-5" })
    : config.driver === "codex"
      ? codex(common)
      : gemini({ ...common, model: "gemini-2.5-flash" });
const agent = new Agent(driver, { threadStore: new MemoryThreadStore() });
const step = (name: string, data: Record<string, unknown> = {}): void => console.log(JSON.stringify({ step: name, ...data }));

/** Drains a stream: whether it ran on a reused process, and its text. */
async function drain(stream: ReturnType<Agent["stream"]>): Promise<{ reused: boolean; text: string }> {
  let reused = false;
  for await (const event of stream) if (event.type === "notice" && event.message === "process reused") reused = true;
  return { reused, text: (await stream.result()).text.slice(0, 20) };
}

if (config.coldOnly) {
  step("cold first turn", await drain(agent.stream(`cold ${config.slow}`)));
  await agent.close();
  step("closed");
  process.exit(0);
}
step("prewarmed", { count: await agent.prewarm() });
step("first turn", await drain(agent.stream(`first ${config.slow}`)));
const thread = agent.thread("held");
step("thread turn 1", await drain(thread.stream(`one ${config.slow}`)));
step("thread turn 2", await drain(thread.stream(`two ${config.slow}`)));
step("thread turn 3 (fresh process)", await drain(thread.stream(`three ${config.slow}`, { spawn: true })));
await agent.close();
step("closed");
