import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { startOpenAIServer, type OpenAIServer } from "@adaptor/testkit";
import { RunError, ThreadSessionError, type Agent, type AgentEvent, type Stream } from "adaptor";
import { alive, codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// A codex CLI killed by a signal mid-turn (an OOM kill) fails that turn only: the thread's stored
// checkpoint stays the truth, and the next turns on the same host continue from it.

const open = closedAfterEach();

// Fault injection: better-sqlite3 as an install that did not build its native binary has it.
const sqlite = vi.hoisted(() => ({ broken: false }));
vi.mock("better-sqlite3", async (importOriginal) => {
  const real = (await importOriginal<{ default: typeof import("better-sqlite3") }>()).default;
  function Database(...args: ConstructorParameters<typeof real>) {
    if (sqlite.broken) throw new Error("Could not locate the bindings file. Tried: build/Release/better_sqlite3.node");
    return new real(...args);
  }
  return { default: Database };
});

/** The bytes of every rollout file below `codexHome`/sessions, by path. */
function rollouts(codexHome: string): Record<string, string> {
  const root = join(codexHome, "sessions");
  const names = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl"));
  return Object.fromEntries(names.map((name) => [name, readFileSync(join(root, name), "latin1")]));
}

/** `error` and its `cause` chain. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && chain.length < 10; e = (e as { cause?: unknown } | null)?.cause) chain.push(e);
  return chain;
}

/** Runs turn one of `agent`'s thread "chat", then a turn whose CLI is SIGKILLed while it waits on the model. */
async function killedAfterOne(s: OpenAIServer, agent: Agent): Promise<void> {
  const thread = agent.thread("chat");
  const one = await turn(thread.stream("turn one [chat-t1]"));
  expect(one.error).toBeUndefined();
  const before = s.responses().length;
  const seen: { pid?: number } = {};
  const killed = turn(thread.stream("SLOW_MS 60000 turn two [chat-lost]"), seen);
  // The CLI has written the turn's start to its rollout once its model request arrives.
  await expect.poll(() => s.responses().length > before && seen.pid !== undefined, { timeout: 60_000, interval: 50 }).toBe(true);
  process.kill(seen.pid!, "SIGKILL");
  const two = await killed;
  expect(two.error).toBeInstanceOf(RunError);
  expect(alive(seen.pid!)).toBe(false);
}

/**
 * Drains a thread turn: the pid of the process serving it (spawned or reused, also set on `seen` as
 * soon as it is known), its text or error, its notices.
 */
async function turn(
  stream: Stream,
  seen: { pid?: number } = {},
): Promise<{ pid?: number; text: string; notices: string[]; error?: unknown }> {
  let pid: number | undefined;
  const notices: string[] = [];
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "process" && event.kind === "spawn") seen.pid = pid = event.pid;
    if (event.type === "notice") {
      notices.push(event.message ?? "");
      if (event.message === "process reused") seen.pid = pid = event.data?.pid as number;
    }
  }
  try {
    return { ...(pid !== undefined ? { pid } : {}), text: (await stream.result()).text, notices };
  } catch (error) {
    return { ...(pid !== undefined ? { pid } : {}), text: "", notices, error };
  }
}

describe("codex killed mid-turn (real binary)", { timeout: 120_000 }, () => {
  it("a CLI SIGKILLed while its turn waits on the model fails that turn; the next two turns on the same host continue the committed history", async () => {
    const s = await startOpenAIServer({ rules: [] });
    open.push(s);
    const { agent } = await codexHost(s, new MemoryThreadStore(), (item) => open.push(item));
    await killedAfterOne(s, agent);
    const thread = agent.thread("chat");
    const three = await turn(thread.stream("turn three [chat-t3]"));
    expect(three.error).toBeUndefined();
    expect(three.text).toMatch(/2 user message\(s\); first user text: "turn one \[chat-t1\]"/);
    const four = await turn(thread.stream("turn four [chat-t4]"));
    expect(four.error).toBeUndefined();
    expect(four.text).toMatch(/3 user message\(s\); first user text: "turn one \[chat-t1\]"/);
    const last = JSON.stringify(s.responses().at(-1)!.body);
    for (const m of ["[chat-t1]", "[chat-t3]", "[chat-t4]"]) expect(last).toContain(m);
    expect(last).not.toContain("[chat-lost]");
  });

  it("when codex's history projection cannot be dropped (better-sqlite3 not loadable), the restore after a killed turn fails and changes no rollout byte; once it loads, the thread continues from the committed turn", async () => {
    const s = await startOpenAIServer({ rules: [] });
    open.push(s);
    const { agent, env } = await codexHost(s, new MemoryThreadStore(), (item) => open.push(item));
    await killedAfterOne(s, agent);
    const left = rollouts(env.codexHome);
    expect(Object.values(left).join("")).toContain("[chat-lost]");
    sqlite.broken = true;
    try {
      const three = await turn(agent.thread("chat").stream("turn three [chat-t3]"));
      expect(three.error).toBeInstanceOf(ThreadSessionError);
      expect(three.error).toMatchObject({ reason: "restore_failed" });
      const messages = causes(three.error).map((e) => String((e as Error).message));
      expect(messages).toContainEqual(expect.stringContaining("better-sqlite3 (a dependency of @adaptor/codex) could not be loaded"));
      expect(messages).toContainEqual(expect.stringContaining("bindings file"));
      expect(rollouts(env.codexHome)).toEqual(left);
    } finally {
      sqlite.broken = false;
    }
    const four = await turn(agent.thread("chat").stream("turn four [chat-t4]"));
    expect(four.error).toBeUndefined();
    expect(four.text).toMatch(/2 user message\(s\); first user text: "turn one \[chat-t1\]"/);
    const five = await turn(agent.thread("chat").stream("turn five [chat-t5]"));
    expect(five.error).toBeUndefined();
    expect(five.text).toMatch(/3 user message\(s\); first user text: "turn one \[chat-t1\]"/);
    const last = JSON.stringify(s.responses().at(-1)!.body);
    for (const m of ["[chat-t1]", "[chat-t4]", "[chat-t5]"]) expect(last).toContain(m);
    expect(last).not.toContain("[chat-lost]");
  });
});
