import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { Agent, type AgentEvent } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";
import { killProcessesNaming, pidHopperCommand, processesNaming } from "../support/pid-hopper.js";

// Real claude binary: a background job that changes its pid every 20 ms (and keeps the CLI's
// process tag) is ended with a thread turn whose process is parked, as with a one-shot run.

let h: Harness | undefined;
let agent: Agent | undefined;
let marker = "";
afterEach(async () => {
  await agent?.close();
  await h?.close();
  killProcessesNaming(marker);
  h = agent = undefined;
});

describe.skipIf(process.platform !== "linux")("claude: a pid-hopping background job ends with its thread turn (real binary)", () => {
  it("nothing carrying the hopper is alive after the verdict of a thread turn; the notice says so", async () => {
    h = await harness([
      {
        when: whenUserSays("HOP"),
        reply: () => ({ toolUse: { name: "Bash", input: { command: pidHopperCommand(marker, 60), description: "hop" } } }),
      },
      { when: whenToolResult("Bash"), reply: { text: "hopper started" } },
    ]);
    marker = join(h.env.workDir, "hopper-late.txt");
    const driver = claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
    agent = new Agent(driver, { threadStore: new MemoryThreadStore() });
    const stream = agent.thread("hop").stream("HOP", { policy: { sandbox: "unrestricted" } });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    expect((await stream.result()).text).toBe("hopper started");
    expect(driver.parkedProcesses).toBe(1);
    // Looked at several times over a second: a hopper between two pids is caught by one of them.
    const seen: number[] = [];
    for (let look = 0; look < 10; look++) {
      seen.push(...processesNaming(marker));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toEqual([]);
    expect(events.some((e) => e.type === "notice" && e.message === "background processes of the turn ended")).toBe(true);
  }, 90_000);
});
