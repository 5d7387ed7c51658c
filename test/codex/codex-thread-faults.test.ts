import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import {
  codexTestEnv,
  startOpenAIServer,
  whenPromptSays,
  type CodexTestEnv,
  type OpenAIServer,
  type ResponsesScriptRule,
} from "@adaptor/testkit";
import {
  Agent,
  BusyError,
  DriverError,
  ErrCode,
  ErrThreadBusy,
  RunError,
  findError,
  isError,
  type AgentEvent,
  type Result,
  type Stream,
} from "adaptor";
import { runDriver } from "@adaptor/driver/testing";
import { codex, type CodexConfig, type CodexDriver } from "@adaptor/codex";
import { alive } from "./support.js";

// Threads under faults on the real codex binary: a failed (or uncommitted) turn leaves no trace in
// the conversation; a thread another process is writing to is busy, never "not found"; usage is
// each run's own on fresh, reused, resumed and forked turns.

/** Several real codex processes per test on a busy machine. */
const SLOW = { timeout: 180_000 };

let server: OpenAIServer | undefined;
let env: CodexTestEnv | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await server?.close();
  await env?.cleanup();
  server = env = undefined;
});

async function setup(rules: ResponsesScriptRule[] = []): Promise<void> {
  server = await startOpenAIServer({ rules });
  env = await codexTestEnv({ server });
}

function newDriver(config: CodexConfig = {}): CodexDriver {
  const driver = codex({ cwd: env!.workDir, env: env!.env, inheritEnv: false, killGraceMs: 1000, ...config });
  closers.push(() => driver.close());
  return driver;
}

function newAgent(store: MemoryThreadStore, config: CodexConfig = {}): Agent {
  const agent = new Agent(newDriver(config), { threadStore: store });
  closers.push(() => agent.close());
  return agent;
}

interface Turn {
  readonly result?: Result;
  readonly error?: unknown;
  readonly reused: boolean;
  readonly pid: number | undefined;
  readonly notices: string[];
}

async function drain(stream: Stream): Promise<Turn> {
  let pid: number | undefined;
  let reused = false;
  const notices: string[] = [];
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "process" && event.kind === "spawn") pid = event.pid;
    if (event.type === "notice") {
      notices.push(event.message ?? "");
      if (event.message === "process reused") {
        reused = true;
        pid = event.data?.pid as number;
      }
    }
  }
  try {
    return { result: await stream.result(), reused, pid, notices };
  } catch (error) {
    return { error, reused, pid, notices };
  }
}

/** The user texts of every model request made after the request at `from`. */
const userTextsFrom = (from: number): (readonly string[])[] =>
  server!
    .responses()
    .slice(from)
    .map((r) => r.view.userTexts);

describe("codex threads under faults (real binary, app-server)", () => {
  it("HTTP 400 in turn 2 leaves no trace: turn 3 resumes from turn 1 and the model never sees turn 2's prompt again", SLOW, async () => {
    await setup();
    const store = new MemoryThreadStore();
    const thread = newAgent(store).thread("chat");
    const one = await drain(thread.stream("turn one"));
    expect(one.error).toBeUndefined();
    const committed = await thread.checkpoint();
    const two = await drain(thread.stream("turn two HTTP_ERROR 400"));
    expect(two.error).toBeInstanceOf(RunError);
    expect(await thread.checkpoint()).toEqual(committed);

    const before = server!.responses().length;
    const three = await drain(thread.stream("turn three"));
    expect(three.error).toBeUndefined();
    expect(three.reused).toBe(false); // the process that served the failure was ended
    // The failed turn's lines past the stored rollout are cut off before codex resumes.
    expect(three.notices).toContain("session restored");
    expect(userTextsFrom(before)).toEqual([["turn one", "turn three"]]);
    expect(three.result?.text).toContain('2 user message(s); first user text: "turn one"');

    // The next turn (reused process) still carries turns one and three only.
    const four = await drain(thread.stream("turn four"));
    expect(four.reused).toBe(true);
    expect(server!.responses().at(-1)?.view.userTexts).toEqual(["turn one", "turn three", "turn four"]);
  });

  it("fork after a failed turn copies only the committed turns", SLOW, async () => {
    await setup();
    const store = new MemoryThreadStore();
    const agent = newAgent(store);
    const thread = agent.thread("chat");
    await drain(thread.stream("turn one"));
    const failed = await drain(thread.stream("turn two HTTP_ERROR 400"));
    expect(failed.error).toBeInstanceOf(RunError);

    const before = server!.responses().length;
    const forked = await drain(thread.fork("chat-copy").stream("forked turn"));
    expect(forked.error).toBeUndefined();
    expect(userTextsFrom(before)).toEqual([["turn one", "forked turn"]]);
    expect((await thread.fork("chat-copy").checkpoint())?.checkpoint.resumeId).not.toBe((await thread.checkpoint())?.checkpoint.resumeId);
  });

  it(
    "a turn codex completed but the run failed (the caller's schema rejected it) is not continued: its process is not reused, the turn is dropped",
    SLOW,
    async () => {
      await setup();
      const thread = newAgent(new MemoryThreadStore()).thread("chat");
      const one = await drain(thread.stream("turn one"));
      expect(one.error).toBeUndefined();
      const committed = await thread.checkpoint();
      const schemaJSON = { type: "object", properties: { answer: { type: "string", enum: ["yes"] } }, required: ["answer"] };
      const rejected = await drain(thread.stream('turn two JSON_REPLY {"answer":"no"}', { schemaJSON }));
      expect(rejected.error).toBeInstanceOf(RunError);
      expect((rejected.error as RunError).reason).toBe("policy_violation");
      expect(await thread.checkpoint()).toEqual(committed);

      // Same launch inputs as turn two, so only the uncommitted turn stands in the way of reuse.
      const before = server!.responses().length;
      const three = await drain(thread.stream('turn three JSON_REPLY {"answer":"yes"}', { schemaJSON }));
      expect(three.error).toBeUndefined();
      expect(three.reused).toBe(false);
      expect(alive(rejected.pid!)).toBe(false);
      // The failed turn's lines past the stored rollout are cut off before codex resumes.
      expect(three.notices).toContain("session restored");
      expect(userTextsFrom(before)).toEqual([["turn one", 'turn three JSON_REPLY {"answer":"yes"}']]);
    },
  );

  it(
    "a thread another agent's parked process is writing to: ErrThreadBusy with a BusyError (holder, retry time), the record unchanged, never a fresh conversation",
    SLOW,
    async () => {
      await setup();
      const store = new MemoryThreadStore();
      const first = newAgent(store, { idleMs: 60_000 });
      const second = newAgent(store, { idleMs: 60_000 });
      const one = await drain(first.thread("shared").stream("turn one"));
      expect(one.error).toBeUndefined();
      const record = await store.resolve({ key: "shared" });
      expect((first.driver as CodexDriver).parkedProcesses).toBe(1);

      const requests = server!.responses().length;
      const before = Date.now();
      const busy = await drain(second.thread("shared").stream("from the second agent"));
      const after = Date.now();
      expect(isError(busy.error, ErrThreadBusy)).toBe(true);
      expect(busy.error).not.toBeInstanceOf(RunError);
      expect(String((busy.error as Error).message)).toContain("active writer");
      // As for a held lease: who holds it and when to retry at the latest (a parked process's idleMs).
      const held = findError(busy.error, BusyError);
      expect(held).toMatchObject({ target: "shared", owner: "another codex process" });
      expect(held!.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 60_000);
      expect(held!.expiresAt!.getTime()).toBeLessThanOrEqual(after + 60_000);
      expect(String((busy.error as Error).message)).toContain(`held by "another codex process" until ${held!.expiresAt!.toISOString()}`);
      expect(server!.responses().length).toBe(requests); // nothing reached the model
      expect(await store.resolve({ key: "shared" })).toEqual(record);

      // Once the first agent lets go, the second continues the same conversation.
      await first.close();
      expect(alive(one.pid!)).toBe(false);
      const two = await drain(second.thread("shared").stream("turn two"));
      expect(two.error).toBeUndefined();
      expect((await store.resolve({ key: "shared" }))?.checkpoint.resumeId).toBe(record?.checkpoint.resumeId);
      expect(server!.responses().at(-1)?.view.userTexts).toEqual(["turn one", "turn two"]);
    },
  );
});

describe("codex exec threads under faults (real binary)", () => {
  it(
    "exec: HTTP 400 in turn 2 leaves no trace: turn 3 resumes from turn 1 and the model never sees turn 2's prompt again",
    SLOW,
    async () => {
      await setup();
      const thread = newAgent(new MemoryThreadStore(), { transport: "exec" }).thread("chat");
      const one = await drain(thread.stream("turn one"));
      expect(one.error).toBeUndefined();
      const two = await drain(thread.stream("turn two HTTP_ERROR 400"));
      expect(two.error).toBeInstanceOf(RunError);
      const before = server!.responses().length;
      const three = await drain(thread.stream("turn three"));
      expect(three.error).toBeUndefined();
      // The failed turn's lines past the stored rollout are cut off before codex resumes.
      expect(three.notices).toContain("session restored");
      expect(userTextsFrom(before)).toEqual([["turn one", "turn three"]]);
      const four = await drain(thread.stream("turn four"));
      expect(four.notices).not.toContain("session restored");
      expect(server!.responses().at(-1)?.view.userTexts).toEqual(["turn one", "turn three", "turn four"]);
    },
  );
});

/** Scripted usage per turn: the prompt `usage-N` gets input 100·N+N, output 10·N+1. */
function usageRules(): ResponsesScriptRule[] {
  return [1, 2, 3, 4].map((n) => ({
    name: `usage-${n}`,
    when: whenPromptSays(`usage-${n}`),
    reply: { text: `reply ${n}`, usage: { input_tokens: 100 * n + n, output_tokens: 10 * n + 1 } },
  }));
}
const scripted = (n: number): { inputTokens: number; outputTokens: number } => ({ inputTokens: 100 * n + n, outputTokens: 10 * n + 1 });

describe("per-run usage on the real binary", () => {
  it("app-server: fresh, reused, resumed in a new process and forked turns each report only their own usage", SLOW, async () => {
    await setup(usageRules());
    const thread = newAgent(new MemoryThreadStore()).thread("usage");
    const fresh = await drain(thread.stream("usage-1"));
    const reused = await drain(thread.stream("usage-2"));
    const resumed = await drain(thread.stream("usage-3", { spawn: true }));
    const forked = await drain(thread.fork("usage-fork").stream("usage-4"));
    expect([fresh.reused, reused.reused, resumed.reused, forked.reused]).toEqual([false, true, false, false]);
    // codex replays the previous turn's usage when the thread is resumed; it was seen and dropped.
    expect(resumed.notices).toContain("events of another turn ignored");
    const usages = [fresh, reused, resumed, forked].map((t) => t.result?.usage);
    for (const [i, usage] of usages.entries()) expect(usage).toMatchObject(scripted(i + 1));
    const sum = usages.reduce((acc, u) => ({ input: acc.input + (u?.inputTokens ?? 0), output: acc.output + (u?.outputTokens ?? 0) }), {
      input: 0,
      output: 0,
    });
    expect(sum).toEqual({ input: 1010, output: 104 });
  });

  it(
    "exec: a fresh turn and three resumed turns (each a new process) report only their own usage, not the thread's running total",
    SLOW,
    async () => {
      await setup(usageRules());
      const thread = newAgent(new MemoryThreadStore(), { transport: "exec" }).thread("usage");
      const turns: Turn[] = [];
      for (const n of [1, 2, 3, 4]) turns.push(await drain(thread.stream(`usage-${n}`)));
      for (const t of turns) expect(t.error).toBeUndefined();
      const usages = turns.map((t) => t.result?.usage);
      for (const [i, usage] of usages.entries()) expect(usage).toMatchObject(scripted(i + 1));
      const sum = usages.reduce((acc, u) => ({ input: acc.input + (u?.inputTokens ?? 0), output: acc.output + (u?.outputTokens ?? 0) }), {
        input: 0,
        output: 0,
      });
      expect(sum).toEqual({ input: 1010, output: 104 });
    },
  );
});

describe("requests codex cannot read or answer (real binary)", () => {
  it(
    "a prompt with a lone surrogate: codex cannot parse turn/start; the run ends with an INVALID DriverError instead of hanging, no process left",
    SLOW,
    async () => {
      await setup();
      const driver = newDriver();
      const run = await runDriver(driver, { prompt: "broken \uD800 prompt" });
      expect(run.error).toBeInstanceOf(DriverError);
      expect(run.error).toMatchObject({ code: ErrCode.Invalid, op: "turn/start" });
      expect((run.error as Error).message).toContain("Failed to deserialize JSONRPCMessage");
      expect((run.error as Error).message).not.toContain("\u001b");
      const pid = run.recording.ofType("process").find((p) => p.kind === "spawn")?.pid;
      expect(alive(pid!)).toBe(false);
      expect(server!.responses()).toHaveLength(0);
      // The driver stays usable.
      const next = await runDriver(driver, { prompt: "well-formed prompt" });
      expect(next.response?.text).toContain('first user text: "well-formed prompt"');
    },
  );

  it("exec resume of a thread an app-server process is writing to: session_busy, not resume_rejected", SLOW, async () => {
    await setup();
    const store = new MemoryThreadStore();
    const holder = newAgent(store);
    await drain(holder.thread("held").stream("turn one"));
    const resumeId = (await store.resolve({ key: "held" }))!.checkpoint.resumeId;
    const run = await runDriver(newDriver({ transport: "exec" }), { prompt: "from exec", session: { resumeId } });
    expect(run.error).toBeUndefined();
    expect(run.response?.failure).toMatchObject({ reason: "session_busy", details: { resumeId } });
    expect(run.response?.failure?.message).toContain("active writer");
    expect(run.response?.checkpoint).toBeUndefined();
  });
});
