import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenUserSays } from "@adaptor/testkit";
import { Agent, ErrResumeRejected, ErrThreadNotFound, isError, type AgentEvent, type Stream } from "adaptor";
import { claude, type ClaudeDriver } from "@adaptor/claude";
import { alive, harness, transcriptFiles, type Harness } from "./support.js";

// Issue "Threads with leases" §5–6 on the real claude binary: sessions resume, fork and are
// rejected for real; live processes are reused between the turns of one thread.

let h: Harness | undefined;
let extra: Agent | undefined;
afterEach(async () => {
  await extra?.close();
  await h?.close();
  h = extra = undefined;
});

async function runAndPid(stream: Stream): Promise<{ text: string; pid: number | undefined; reused: boolean }> {
  let pid: number | undefined;
  let reused = false;
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "process" && event.kind === "spawn") pid = event.pid;
    if (event.type === "notice" && event.message === "process reused") {
      reused = true;
      pid = event.data?.pid as number;
    }
  }
  return { text: (await stream.result()).text, pid, reused };
}

function threadAgent(harnessed: Harness, store: MemoryThreadStore, spawn = false): Agent {
  return new Agent(claude({ cwd: harnessed.env.workDir, env: harnessed.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: store,
    spawn,
  });
}

describe("claude threads on the real binary", { timeout: 120_000 }, () => {
  it("three turns on one live process: the model sees the history grow; close() leaves no process", async () => {
    h = await harness();
    const store = new MemoryThreadStore();
    extra = threadAgent(h, store);
    const thread = extra.thread("chat");
    const first = await runAndPid(thread.stream("first turn"));
    const second = await runAndPid(thread.stream("second turn"));
    const third = await runAndPid(thread.stream("third turn"));
    expect(first.text).toMatch(/I saw 1 message/);
    expect(second.text).toMatch(/I saw 3 message/);
    expect(third.text).toMatch(/I saw 5 message/);
    expect([second.reused, third.reused]).toEqual([true, true]);
    expect(new Set([first.pid, second.pid, third.pid]).size).toBe(1);
    expect((extra.driver as ClaudeDriver).parkedProcesses).toBe(1);
    const counts = h.server.requests.map((r) => r.view.messageCount);
    expect(counts).toEqual([1, 3, 5]);
    await extra.close();
    expect(alive(first.pid!)).toBe(false);
  });

  it("thread.delete() ends the thread's parked process; the next turn on the key is a new conversation on the only process", async () => {
    h = await harness();
    extra = threadAgent(h, new MemoryThreadStore());
    const first = await runAndPid(extra.thread("chat").stream("first turn"));
    expect((extra.driver as ClaudeDriver).parkedProcesses).toBe(1);
    await extra.thread("chat").delete();
    expect((extra.driver as ClaudeDriver).parkedProcesses).toBe(0);
    expect(alive(first.pid!)).toBe(false);
    const again = await runAndPid(extra.thread("chat").stream("after delete"));
    expect(again.reused).toBe(false);
    expect(again.text).toMatch(/I saw 1 message/);
    expect((extra.driver as ClaudeDriver).parkedProcesses).toBe(1);
  });

  it("spawn: true and a changed environment replace the process; resume in a new process keeps the history", async () => {
    h = await harness();
    const store = new MemoryThreadStore();
    extra = threadAgent(h, store);
    const thread = extra.thread("chat");
    const one = await runAndPid(thread.stream("one"));
    const two = await runAndPid(thread.stream("two", { spawn: true }));
    expect(two.reused).toBe(false);
    expect(two.pid).not.toBe(one.pid);
    expect(alive(one.pid!)).toBe(false);
    expect(two.text).toMatch(/I saw 3 message/);
    const three = await runAndPid(thread.stream("three", { env: { ADAPTOR_TEST_MARK: "changed" } }));
    expect(three.reused).toBe(false);
    expect(three.pid).not.toBe(two.pid);
    expect(three.text).toMatch(/I saw 5 message/);
  });

  it("fork: a new session with the parent's history; the parent continues on its own", async () => {
    h = await harness([{ when: whenUserSays("remember"), reply: { text: "noted" } }]);
    const store = new MemoryThreadStore();
    extra = threadAgent(h, store);
    const parent = extra.thread("parent");
    await parent.run("remember the number 7");
    const child = parent.fork("child");
    const forked = await child.run("what was it?");
    expect(forked.text).toMatch(/I saw 3 message/);
    const parentRecord = await parent.checkpoint();
    const childRecord = await child.checkpoint();
    expect(childRecord?.checkpoint.resumeId).toBeDefined();
    expect(childRecord?.checkpoint.resumeId).not.toBe(parentRecord?.checkpoint.resumeId);
    expect((await parent.run("and the parent?")).text).toMatch(/I saw 3 message/);
  });

  it("resume-only on a missing key → ErrThreadNotFound with no process started", async () => {
    h = await harness();
    extra = threadAgent(h, new MemoryThreadStore());
    const stream = extra.thread("nobody", { resumeOnly: true }).stream("hello");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(isError(await stream.result().catch((e: unknown) => e), ErrThreadNotFound)).toBe(true);
    expect(events.some((e) => e.type === "process")).toBe(false);
  });

  it("transcript deleted between turns, store without session state: resume-only → ErrResumeRejected; continue-or-start falls back to a fresh session", async () => {
    h = await harness();
    // A checkpoint-only store; with portable sessions the transcript is restored instead (portable-sessions.test.ts).
    const store = new MemoryThreadStore({ sessionState: false });
    extra = threadAgent(h, store, true);
    await extra.thread("chat").run("before deletion");
    const sessionId = (await store.resolve({ key: "chat" }))!.checkpoint.resumeId;
    const files = transcriptFiles(h.env.configDir, sessionId);
    expect(files).toHaveLength(1);
    for (const file of files) rmSync(file);
    const strict = await extra
      .thread("chat", { resumeOnly: true })
      .run("strict")
      .catch((e: unknown) => e);
    expect(isError(strict, ErrResumeRejected)).toBe(true);
    expect((await store.resolve({ key: "chat" }))!.checkpoint.resumeId).toBe(sessionId);
    const fallback = await extra.thread("chat").run("after deletion");
    expect(fallback.text).toMatch(/I saw 1 message/);
    const record = await store.resolve({ key: "chat" });
    expect(record!.checkpoint.resumeId).not.toBe(sessionId);
  });

  it("another agent continuing the thread in between: the parked process is not reused and its turn is seen", async () => {
    h = await harness();
    const store = new MemoryThreadStore();
    extra = threadAgent(h, store);
    const other = threadAgent(h, store);
    try {
      const alpha = await runAndPid(extra.thread("shared").stream("alpha"));
      await other.thread("shared").run("beta");
      const gamma = await runAndPid(extra.thread("shared").stream("gamma"));
      expect(gamma.reused).toBe(false);
      expect(alive(alpha.pid!)).toBe(false);
      expect(gamma.text).toMatch(/I saw 5 message/);
    } finally {
      await other.close();
    }
  });
});
