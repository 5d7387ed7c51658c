import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { claudeTestEnv, startAnthropicServer } from "@adaptor/testkit";
import { Agent, RunError, type AgentEvent, type Stream } from "adaptor";
import { claude } from "@adaptor/claude";
import { alive } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// A claude CLI killed by a signal mid-turn (an OOM kill) fails that turn only: the thread's stored
// checkpoint stays the truth, and the next turns on the same host continue from it.

const open = closedAfterEach();

/**
 * Drains a thread turn: its text or error; `seen.pid` is set to the pid of the process serving it
 * (spawned or reused) as soon as it is known.
 */
async function turn(stream: Stream, seen: { pid?: number } = {}): Promise<{ text: string; error?: unknown }> {
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "process" && event.kind === "spawn") seen.pid = event.pid;
    if (event.type === "notice" && event.message === "process reused") seen.pid = event.data?.pid as number;
  }
  try {
    return { text: (await stream.result()).text };
  } catch (error) {
    return { text: "", error };
  }
}

describe("claude killed mid-turn (real binary)", { timeout: 120_000 }, () => {
  it("a CLI SIGKILLed while its turn waits on the model fails that turn; the next two turns on the same host continue the committed history", async () => {
    const s = await startAnthropicServer({ rules: [] });
    open.push(s);
    const env = await claudeTestEnv({ server: s });
    open.push({ close: () => env.cleanup() });
    const agent = new Agent(claude({ env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
      cwd: env.workDir,
    });
    open.push(agent);
    const thread = agent.thread("chat");
    const one = await turn(thread.stream("turn one [chat-t1]"));
    expect(one.error).toBeUndefined();

    const asked = () => s.requests.filter((r) => JSON.stringify(r.body ?? "").includes("[chat-lost]")).length;
    const seen: { pid?: number } = {};
    const killed = turn(thread.stream("SLOW_MS 60000 turn two [chat-lost]"), seen);
    // The CLI has written the turn's prompt to its transcript once its model request arrives.
    await expect.poll(() => asked() > 0 && seen.pid !== undefined, { timeout: 60_000, interval: 50 }).toBe(true);
    process.kill(seen.pid!, "SIGKILL");
    const two = await killed;
    expect(two.error).toBeInstanceOf(RunError);
    expect(alive(seen.pid!)).toBe(false);

    const three = await turn(thread.stream("turn three [chat-t3]"));
    expect(three.error).toBeUndefined();
    expect(three.text).toMatch(/first user text: "turn one \[chat-t1\]"/);
    const four = await turn(thread.stream("turn four [chat-t4]"));
    expect(four.error).toBeUndefined();
    const last = JSON.stringify(s.requests.at(-1)!.body);
    for (const m of ["[chat-t1]", "[chat-t3]", "[chat-t4]"]) expect(last).toContain(m);
    expect(last).not.toContain("[chat-lost]");
  });
});
