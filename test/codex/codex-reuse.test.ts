import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, RunError, type AgentEvent, type AgentOptions, type Stream } from "adaptor";
import type { CodexConfig, CodexDriver } from "@adaptor/codex";
import { alive, codexHarness, type CodexHarness } from "./support.js";

// Process reuse for Codex thread turns (issue 7 §1, issue 3 §5) on the real binary: a thread's
// app-server process is parked after a healthy turn and the next turn is only a `turn/start` on the
// thread it already has loaded; anything that changes a spawn input, `spawn: true`, a failure, a
// cancel or idleness ends it; `agent.close()` leaves no process.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

interface Turn {
  readonly text: string;
  readonly pid: number | undefined;
  readonly reused: boolean;
  readonly stdout: string;
  readonly error?: unknown;
}

/** Drains a thread turn: its process (spawned or reused), its text or error, its raw stdout. */
async function turn(stream: Stream): Promise<Turn> {
  let pid: number | undefined;
  let reused = false;
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "process" && event.kind === "spawn") pid = event.pid;
    if (event.type === "notice" && event.message === "process reused") {
      reused = true;
      pid = event.data?.pid as number;
    }
  }
  try {
    const result = await stream.result();
    return { text: result.text, pid, reused, stdout: result.raw().stdout };
  } catch (error) {
    return { text: "", pid, reused, stdout: "", error };
  }
}

async function threadAgent(options: { config?: CodexConfig; agent?: Omit<AgentOptions, "threadStore"> } = {}): Promise<Agent> {
  h = await codexHarness(options.config ? { config: options.config } : {});
  agent = new Agent(h.driver, { threadStore: new MemoryThreadStore(), ...options.agent });
  return agent;
}

/** `error` and its `cause` chain. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && chain.length < 10; e = (e as { cause?: unknown } | null)?.cause) chain.push(e);
  return chain;
}

const parked = (): number => (agent?.driver as CodexDriver).parkedProcesses;

describe("codex process reuse for thread turns (real binary)", () => {
  it("thread.delete() ends the thread's parked process; the next turn on the key is a new conversation on the only process", async () => {
    const a = await threadAgent();
    const first = await turn(a.thread("chat").stream("first turn"));
    expect(parked()).toBe(1);
    await a.thread("chat").delete();
    expect(parked()).toBe(0);
    expect(alive(first.pid!)).toBe(false);
    const again = await turn(a.thread("chat").stream("after delete"));
    expect(again.reused).toBe(false);
    expect(again.text).toBe('Fake reply. I saw 4 input item(s), 1 user message(s); first user text: "after delete"');
    expect(parked()).toBe(1);
  });

  it("three turns of one thread run on one process; the model sees the history grow; no second initialize", async () => {
    const thread = (await threadAgent()).thread("chat");
    const first = await turn(thread.stream("first turn"));
    const second = await turn(thread.stream("second turn"));
    const third = await turn(thread.stream("third turn"));
    expect([first.reused, second.reused, third.reused]).toEqual([false, true, true]);
    expect(first.pid).toBeDefined();
    expect(new Set([first.pid, second.pid, third.pid]).size).toBe(1);
    expect(third.text).toBe('Fake reply. I saw 8 input item(s), 3 user message(s); first user text: "first turn"');
    expect(h!.server.responses().map((r) => [r.view.inputCount, r.view.userMessageCount])).toEqual([
      [4, 1],
      [6, 2],
      [8, 3],
    ]);
    expect(h!.server.responses().at(-1)?.view.userTexts).toEqual(["first turn", "second turn", "third turn"]);
    // The initialize reply (userAgent) is only in the first turn's stdout: later turns are turn/start only.
    expect(first.stdout).toContain('"userAgent"');
    expect(second.stdout).not.toContain('"userAgent"');
    expect(third.stdout).not.toContain('"userAgent"');
    expect(parked()).toBe(1);
    expect(alive(first.pid!)).toBe(true);
  });

  it("spawn: true replaces the process (the old pid is gone) and resumes the thread in the new one", async () => {
    const thread = (await threadAgent()).thread("chat");
    const one = await turn(thread.stream("one"));
    const two = await turn(thread.stream("two", { spawn: true }));
    expect(two.reused).toBe(false);
    expect(two.pid).not.toBe(one.pid);
    expect(alive(one.pid!)).toBe(false);
    expect(two.text).toContain('2 user message(s); first user text: "one"');
    expect(parked()).toBe(0); // a spawn: true turn does not leave its process behind
    expect(alive(two.pid!)).toBe(false);
    const three = await turn(thread.stream("three"));
    expect(three.reused).toBe(false);
    expect(three.text).toContain("3 user message(s)");
    expect(parked()).toBe(1);
  });

  it("a changed environment replaces the process; the same environment again reuses the new one", async () => {
    const thread = (await threadAgent()).thread("chat");
    const one = await turn(thread.stream("one"));
    const two = await turn(thread.stream("two", { env: { ADAPTOR_TEST_MARK: "changed" } }));
    expect(two.reused).toBe(false);
    expect(two.pid).not.toBe(one.pid);
    expect(alive(one.pid!)).toBe(false);
    expect(two.text).toContain("2 user message(s)");
    const three = await turn(thread.stream("three", { env: { ADAPTOR_TEST_MARK: "changed" } }));
    expect(three.reused).toBe(true);
    expect(three.pid).toBe(two.pid);
    expect(three.text).toContain("3 user message(s)");
  });

  it("after agent.close() no codex process is left (live or parked)", async () => {
    const a = await threadAgent();
    const left = await turn(a.thread("left").stream("hello left"));
    const right = await turn(a.thread("right").stream("hello right"));
    expect(left.pid).not.toBe(right.pid);
    expect(parked()).toBe(2);
    expect([alive(left.pid!), alive(right.pid!)]).toEqual([true, true]);
    await a.close();
    expect(parked()).toBe(0);
    expect([alive(left.pid!), alive(right.pid!)]).toEqual([false, false]);
  });

  it("an approval on a reused process reaches that turn's host; the approved command runs", async () => {
    const asks: string[] = [];
    const thread = (
      await threadAgent({
        agent: {
          policy: { approvals: { permission: "ask" } },
          onApproval: (request) => {
            asks.push(String(request.details?.command));
            return request.approve();
          },
        },
      })
    ).thread("chat");
    const one = await turn(thread.stream("one"));
    const two = await turn(thread.stream("SHELL_CMD echo reused-approval"));
    expect(two.error).toBeUndefined();
    expect(two.reused).toBe(true);
    expect(two.pid).toBe(one.pid);
    expect(asks).toHaveLength(1);
    expect(asks[0]).toContain("echo reused-approval");
    expect(two.text).toMatch(/^Done: .*reused-approval/);
    expect(parked()).toBe(1);
  });

  it("a failed or cancelled turn ends the reused process; the next turn spawns and still has the history", async () => {
    const thread = (await threadAgent()).thread("chat");
    const one = await turn(thread.stream("one"));
    const failed = await turn(thread.stream("HTTP_ERROR 400"));
    expect(failed.reused).toBe(true);
    expect(failed.error).toBeInstanceOf(RunError);
    expect(alive(one.pid!)).toBe(false);
    expect(parked()).toBe(0);

    const two = await turn(thread.stream("two"));
    expect(two.reused).toBe(false);
    expect(two.text).toContain('first user text: "one"');
    const controller = new AbortController();
    const slow = thread.stream("SLOW_MS 30000 slow", { signal: controller.signal });
    const reason = new Error("stop");
    setTimeout(() => controller.abort(reason), 800);
    const cancelled = await turn(slow);
    expect(cancelled.reused).toBe(true);
    expect(cancelled.pid).toBe(two.pid);
    expect(causes(cancelled.error)).toContain(reason);
    expect(alive(two.pid!)).toBe(false);
    expect(parked()).toBe(0);
  });

  it("a parked process is ended after idleMs; the next turn resumes the thread in a new process", async () => {
    // idleMs well over a second: the check right after the turn must see the process before eviction, also on a busy machine.
    const thread = (await threadAgent({ config: { idleMs: 3_000 } })).thread("chat");
    const one = await turn(thread.stream("one"));
    expect(parked()).toBe(1);
    await expect.poll(() => alive(one.pid!), { timeout: 60_000, interval: 50 }).toBe(false);
    expect(parked()).toBe(0);
    const two = await turn(thread.stream("two"));
    expect(two.reused).toBe(false);
    expect(two.text).toContain("2 user message(s)");
  });

  it("a parked process that died is not reused: the next turn spawns and resumes the thread", async () => {
    const thread = (await threadAgent()).thread("chat");
    const one = await turn(thread.stream("one"));
    process.kill(one.pid!, "SIGKILL");
    await expect.poll(() => alive(one.pid!), { timeout: 60_000, interval: 20 }).toBe(false);
    const two = await turn(thread.stream("two"));
    expect(two.error).toBeUndefined();
    expect(two.reused).toBe(false);
    expect(two.pid).not.toBe(one.pid);
    expect(two.text).toContain('2 user message(s); first user text: "one"');
  });
});
