// A host program that runs one thread turn (or, with `prewarm`, pre-warms one process) and never
// calls agent.close(): the turn's CLI stays parked for the next turn (the pre-warmed one waits for
// its first), and the host must still exit by itself once it has nothing left to do.
// Prints `{"cli":pid,"running":true}` after the turn. The parent owns the scripted model and the CLI home.
import { readdirSync, readFileSync } from "node:fs";
import { gemini } from "@adaptor/acp";
import { claude } from "@adaptor/claude";
import { codex } from "@adaptor/codex";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";

/** What the parent passes in `ADAPTOR_HOST`. */
export interface ForgetfulHostConfig {
  readonly driver: "claude" | "codex" | "gemini";
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Pre-warm one process instead of running a thread turn. */
  readonly prewarm?: boolean;
}

/** The pids of this process's children (Linux: from `/proc`). */
function children(): string[] {
  return readdirSync("/proc").filter((name) => {
    if (!/^\d+$/.test(name)) return false;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] === String(process.pid);
    } catch {
      return false;
    }
  });
}

const config = JSON.parse(process.env.ADAPTOR_HOST ?? "{}") as ForgetfulHostConfig;
const driver =
  config.driver === "claude"
    ? claude({ cwd: config.cwd, env: config.env, inheritEnv: false, model: "claude-sonnet-4-5" })
    : config.driver === "codex"
      ? codex({ cwd: config.cwd, env: config.env, inheritEnv: false })
      : gemini({ cwd: config.cwd, env: config.env, inheritEnv: false, model: "gemini-2.5-flash" });
const agent = new Agent(driver, { threadStore: new MemoryThreadStore() });
let cli: number | undefined;
if (config.prewarm === true) {
  // The host's own children (a TypeScript loader's helper) are not the pre-warmed CLI.
  const before = new Set(children());
  await agent.prewarm();
  const started = children().filter((pid) => !before.has(pid));
  cli = started.length === 1 ? Number(started[0]) : undefined;
} else {
  const stream = agent.thread("forgotten").stream("a thread turn");
  for await (const event of stream) if (event.type === "process" && event.kind === "spawn") cli = event.pid;
  await stream.result();
}
// Still running after the turn: parked for the thread's next turn, not ended.
const running =
  cli !== undefined &&
  ((): boolean => {
    try {
      process.kill(cli, 0);
      return true;
    } catch {
      return false;
    }
  })();
console.log(JSON.stringify({ cli, running }));
