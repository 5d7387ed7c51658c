import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, type AgentEvent, type Stream } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";
import { killProcessesNaming, pidHopperCommand, processesNaming } from "../support/pid-hopper.js";

// Real codex binary (pinned 0.171.0): a command the model starts in the background must not outlive
// the turn that started it, on a one-shot run and on a thread turn whose process is parked for the
// thread's next turn. The command writes a file 3 s after it starts; the test waits well past that.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
let hopperMarker = "";
afterEach(async () => {
  await agent?.close();
  await h?.close();
  if (hopperMarker) killProcessesNaming(hopperMarker);
  h = agent = undefined;
});

/**
 * A shell command that returns at once and leaves a job that writes `file` 3 s later, detached from
 * the command's terminal (`nohup`, so the hang-up when the shell exits does not end it).
 */
const lateWrite = (file: string): string => `setsid -f sh -c 'sleep 3; echo late > ${file}' > /dev/null 2>&1; echo started`;

async function drain(stream: Stream): Promise<{ events: AgentEvent[]; reused: boolean }> {
  const events: AgentEvent[] = [];
  for await (const event of stream as AsyncIterable<AgentEvent>) events.push(event);
  await stream.result();
  return { events, reused: events.some((e) => e.type === "notice" && e.message === "process reused") };
}

const UNRESTRICTED = { policy: { sandbox: "unrestricted" as const, approvals: { permission: "auto_approve" as const } } };

describe.skipIf(process.platform !== "linux")("codex background commands end with their turn (real binary)", () => {
  it("one-shot run: the background job never writes its file", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    const file = join(h.env.workDir, "late-oneshot.txt");
    const result = await agent.run(`SHELL_CMD ${lateWrite(file)}`, UNRESTRICTED);
    expect(result.text).toContain("started");
    await new Promise((r) => setTimeout(r, 6000));
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  it("exec transport: the background job never writes its file", async () => {
    h = await codexHarness({ config: { transport: "exec" } });
    agent = new Agent(h.driver);
    const file = join(h.env.workDir, "late-exec.txt");
    const result = await agent.run(`SHELL_CMD ${lateWrite(file)}`, { policy: { sandbox: "unrestricted" } });
    expect(result.text).toContain("started");
    await new Promise((r) => setTimeout(r, 6000));
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  it("thread turn: the background job is ended at the turn's end, the process is still parked and reused", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver, { threadStore: new MemoryThreadStore() });
    const thread = agent.thread("bg");
    const file = join(h.env.workDir, "late-thread.txt");
    const first = await drain(thread.stream(`SHELL_CMD ${lateWrite(file)}`, UNRESTRICTED));
    expect(first.events.some((e) => e.type === "notice" && e.message === "background processes of the turn ended")).toBe(true);
    expect(h.driver.parkedProcesses).toBe(1);
    await new Promise((r) => setTimeout(r, 6000));
    expect(existsSync(file)).toBe(false);
    const second = await drain(thread.stream("hello again", UNRESTRICTED));
    expect(second.reused).toBe(true);
  }, 60_000);

  it("thread turn: a job that keeps changing its pid (and keeps the tag) is ended before the verdict, with the notice", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver, { threadStore: new MemoryThreadStore() });
    hopperMarker = join(h.env.workDir, "hopper-late.txt");
    const first = await drain(agent.thread("hop").stream(`SHELL_CMD ${pidHopperCommand(hopperMarker, 60)}`, UNRESTRICTED));
    expect(h.driver.parkedProcesses).toBe(1);
    // Looked at several times over a second: a hopper between two pids is caught by one of them.
    const seen: number[] = [];
    for (let look = 0; look < 10; look++) {
      seen.push(...processesNaming(hopperMarker));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toEqual([]);
    expect(first.events.some((e) => e.type === "notice" && e.message === "background processes of the turn ended")).toBe(true);
  }, 90_000);
});
