// A host program that runs one thread turn and never calls agent.close(): the turn's CLI stays
// parked for the next turn, and the host must still exit by itself once it has nothing left to do.
// Prints `{"cli":pid,"running":true}` after the turn. The parent owns the scripted model and the CLI home.
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
}

const config = JSON.parse(process.env.ADAPTOR_HOST ?? "{}") as ForgetfulHostConfig;
const driver =
  config.driver === "claude"
    ? claude({ cwd: config.cwd, env: config.env, inheritEnv: false, model: "claude-sonnet-4-5" })
    : config.driver === "codex"
      ? codex({ cwd: config.cwd, env: config.env, inheritEnv: false })
      : gemini({ cwd: config.cwd, env: config.env, inheritEnv: false, model: "gemini-2.5-flash" });
const agent = new Agent(driver, { threadStore: new MemoryThreadStore() });
const stream = agent.thread("forgotten").stream("a thread turn");
let cli: number | undefined;
for await (const event of stream) if (event.type === "process" && event.kind === "spawn") cli = event.pid;
await stream.result();
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
