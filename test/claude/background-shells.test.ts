import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { Agent, type AgentEvent, type Stream } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// Real claude binary (pinned 2.1.332): a Bash command the model runs in the background
// (`run_in_background: true`) must not outlive its turn, also when the turn's process is parked for
// the thread's next turn. The command writes a file 3 s after it starts; the test waits past that.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const lateWrite = (file: string): string => `node -e "setTimeout(() => require('fs').writeFileSync('${file}', 'late'), 3000)"`;

/** The file the background command writes; set once the harness made the work dir. */
let lateFile = "";
const RULES = [
  {
    when: whenUserSays("START_BG"),
    reply: () => ({
      toolUse: { name: "Bash", input: { command: lateWrite(lateFile), description: "write later", run_in_background: true } },
    }),
  },
  { when: whenToolResult("Bash"), reply: { text: "started in the background" } },
];

async function drain(stream: Stream): Promise<{ events: AgentEvent[]; reused: boolean; text: string }> {
  const events: AgentEvent[] = [];
  for await (const event of stream as AsyncIterable<AgentEvent>) events.push(event);
  const { text } = await stream.result();
  return { events, text, reused: events.some((e) => e.type === "notice" && e.message === "process reused") };
}

const UNRESTRICTED = { policy: { sandbox: "unrestricted" as const } };

describe.skipIf(process.platform !== "linux")("claude background shells end with their turn (real binary)", () => {
  it("one-shot run: the background Bash command never writes its file", async () => {
    h = await harness(RULES);
    lateFile = join(h.env.workDir, "late-oneshot.txt");
    const result = await h.agent.run("START_BG", UNRESTRICTED);
    expect(result.text).toBe("started in the background");
    await new Promise((r) => setTimeout(r, 6000));
    expect(existsSync(lateFile)).toBe(false);
  }, 60_000);

  it("thread turn: the background Bash command is ended at the turn's end, the parked process is reused", async () => {
    h = await harness(RULES);
    lateFile = join(h.env.workDir, "late-thread.txt");
    const driver = claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
    agent = new Agent(driver, { threadStore: new MemoryThreadStore() });
    const thread = agent.thread("bg");
    const first = await drain(thread.stream("START_BG", UNRESTRICTED));
    expect(first.text).toBe("started in the background");
    expect(first.events.some((e) => e.type === "notice" && e.message === "background processes of the turn ended")).toBe(true);
    expect(driver.parkedProcesses).toBe(1);
    const requests = h.server.requests.length;
    await new Promise((r) => setTimeout(r, 6000));
    expect(existsSync(lateFile)).toBe(false);
    // The parked CLI did not start a model turn of its own about the ended task.
    expect(h.server.requests.length).toBe(requests);
    const second = await drain(thread.stream("hello again", UNRESTRICTED));
    expect(second.reused).toBe(true);
    expect(second.text).toMatch(/^Fake reply/);
  }, 60_000);
});
