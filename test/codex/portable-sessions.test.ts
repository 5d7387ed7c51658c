import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { startOpenAIServer, type OpenAIServer } from "@adaptor/testkit";
import {
  appendFileSync,
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ErrThreadSessionRewritten, ThreadSessionError, findError, isError, type Agent, type AgentEvent, type Stream } from "adaptor";
import { codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// Portable sessions on the real codex binary: two hosts (own CODEX_HOME, own working directory)
// share one store; each turn lands on either host and continues the same thread.

const open = closedAfterEach();

async function host(s: OpenAIServer, store: MemoryThreadStore, transport: "app-server" | "exec" = "app-server"): Promise<Agent> {
  return (await codexHost(s, store, (item) => open.push(item), transport)).agent;
}

/** Every rollout file below `codexHome`/sessions. */
function rollouts(codexHome: string): string[] {
  const root = join(codexHome, "sessions");
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => join(root, name));
}

async function drain(stream: Stream): Promise<{ text: string; notices: string[]; appended?: unknown; trimmed?: unknown }> {
  const notices: string[] = [];
  let appended: unknown;
  let trimmed: unknown;
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type !== "notice") continue;
    notices.push(event.message ?? "");
    if (event.message === "session restored") ({ appended, trimmed } = event.data ?? {});
  }
  return { text: (await stream.result()).text, notices, appended, trimmed };
}

/** A complete rollout line no turn wrote: a user message codex would replay. */
const FORGED_ITEM = `${JSON.stringify({
  timestamp: "2026-01-01T00:00:00.000Z",
  type: "response_item",
  payload: { type: "message", role: "user", content: [{ type: "input_text", text: "FORGED-ITEM" }] },
})}\n`;

describe("codex portable sessions on the real binary", { timeout: 120_000 }, () => {
  it("turns alternate between two hosts with different CODEX_HOMEs and working directories; every turn carries the whole thread", async () => {
    const s = await startOpenAIServer({ rules: [] });
    open.push(s);
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const b = await host(s, store);
    const order = [a, b, b, a];
    const users: string[] = [];
    const appended: unknown[] = [];
    for (const [i, agent] of order.entries()) {
      const turn = await drain(agent.thread("chat").stream(`turn ${i + 1} [chat-t${i + 1}]`));
      if (i > 0 && order[i - 1] !== agent) expect(turn.notices).toContain("session restored");
      users.push(/(\d+) user message/.exec(turn.text)?.[1] ?? "?");
      appended.push(turn.appended);
    }
    expect(users).toEqual(["1", "2", "3", "4"]);
    // A host without the rollout gets it whole; one that holds an older copy gets only the later turns appended.
    expect(appended).toEqual([undefined, false, undefined, true]);
    const last = JSON.stringify(s.requests.at(-1)!.body);
    for (let t = 1; t <= 4; t++) expect(last).toContain(`[chat-t${t}]`);
  });

  it("a host whose own rollout diverged (a turn failed there while another host committed) takes the stored one and continues it", async () => {
    const s = await startOpenAIServer({ rules: [] });
    open.push(s);
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const b = await host(s, store);
    await drain(a.thread("chat").stream("turn one [chat-t1]"));
    await expect(a.thread("chat").run("turn two fails HTTP_ERROR 400 [chat-lost]")).rejects.toThrow();
    await drain(b.thread("chat").stream("turn two [chat-t2]"));
    const three = await drain(a.thread("chat").stream("turn three [chat-t3]"));
    expect(three.notices).toContain("session restored");
    expect(three.text).toMatch(/3 user message/);
    const last = JSON.stringify(s.requests.at(-1)!.body);
    for (const m of ["[chat-t1]", "[chat-t2]", "[chat-t3]"]) expect(last).toContain(m);
    expect(last).not.toContain("[chat-lost]");
  });

  for (const [what, extra] of [
    ["a complete rollout item", FORGED_ITEM],
    ["a line that is not JSON", "GARBAGE-NOT-JSON\n"],
    ["a half-written line", '{"timestamp":"2026-01-01T00:00:00.000Z","type":"HALF-LINE'],
  ] as const) {
    it(`${what} appended to the local rollout between turns is cut off before codex resumes: the host continues, and nothing of it is stored or reaches another host`, async () => {
      const s = await startOpenAIServer({ rules: [] });
      open.push(s);
      const store = new MemoryThreadStore();
      const a = await codexHost(s, store, (item) => open.push(item));
      const b = await codexHost(s, store, (item) => open.push(item));
      await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
      await drain(a.agent.thread("chat").stream("turn two [chat-t2]"));
      const [file] = rollouts(a.env.codexHome);
      appendFileSync(file!, extra);
      const three = await drain(a.agent.thread("chat").stream("turn three [chat-t3]", { spawn: true }));
      expect(three.trimmed).toBe(true);
      expect(three.text).toMatch(/3 user message/);
      const four = await drain(b.agent.thread("chat").stream("turn four [chat-t4]"));
      expect(four.text).toMatch(/4 user message/);
      const marker = extra.slice(-12, -1);
      expect(readFileSync(rollouts(b.env.codexHome)[0]!, "utf8")).not.toContain(marker);
      for (const request of s.requests) expect(JSON.stringify(request.body)).not.toContain("FORGED-ITEM");
    });
  }

  it("another thread's rollout copied over the local one is replaced from the store: that host continues the thread (codex's history projection of the foreign bytes is dropped)", async () => {
    const s = await startOpenAIServer({ rules: [] });
    open.push(s);
    const store = new MemoryThreadStore();
    const a = await codexHost(s, store, (item) => open.push(item));
    await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
    const [own] = rollouts(a.env.codexHome);
    await drain(a.agent.thread("other").stream("other one [other-1]"));
    await drain(a.agent.thread("other").stream("other two [other-2]"));
    copyFileSync(
      rollouts(a.env.codexHome).find((f) => f !== own)!,
      own!,
    );
    const sent = s.requests.length;
    for (const n of [2, 3]) {
      const turn = await drain(a.agent.thread("chat").stream(`turn ${n} [chat-t${n}]`, { spawn: true }));
      expect(turn.text).toMatch(new RegExp(`${n} user message`));
    }
    for (const request of s.requests.slice(sent)) expect(JSON.stringify(request.body)).not.toContain("[other-");
  });

  it("exec transport: turns alternate between two hosts and each carries the whole thread", async () => {
    const s = await startOpenAIServer({ rules: [] });
    open.push(s);
    const store = new MemoryThreadStore();
    const a = await host(s, store, "exec");
    const b = await host(s, store, "exec");
    const users: string[] = [];
    for (const agent of [a, b, a, b])
      users.push(/(\d+) user message/.exec((await agent.thread("chat").run(`turn ${users.length + 1}`)).text)?.[1] ?? "?");
    expect(users).toEqual(["1", "2", "3", "4"]);
  });

  it("a rollout removed during a turn (by the turn's own command) is never committed as gone: ErrThreadSessionRewritten with the turn's Result; another host continues the committed thread", async () => {
    const s = await startOpenAIServer({ rules: [] });
    open.push(s);
    const store = new MemoryThreadStore();
    const a = await codexHost(s, store, (item) => open.push(item));
    const b = await host(s, store);
    await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
    const before = await store.resolve({ key: "chat" });
    const stored = await store.sessionState!.read(before!.id);
    const [file] = rollouts(a.env.codexHome);
    const err = await a.agent
      .thread("chat")
      .run(`SHELL_CMD unlink ${file}`, { policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } } })
      .catch((e: unknown) => e);
    const typed = findError(err, ThreadSessionError);
    expect(typed?.reason).toBe("rewritten");
    expect(isError(err, ErrThreadSessionRewritten)).toBe(true);
    expect(typed?.result?.text).toMatch(/^Done:/);
    expect((await store.resolve({ key: "chat" }))?.revision).toBe(before?.revision);
    expect(await store.sessionState!.read(before!.id)).toStrictEqual(stored);
    const two = await drain(b.thread("chat").stream("turn two [chat-t2]"));
    expect(two.notices).toContain("session restored");
    expect(two.text).toMatch(/2 user message/);
  });

  it("a rollout replaced by a byte-identical new file while the app-server is parked: the next turn runs on a process that resumes the file at the path, is stored, and every host continues it", async () => {
    const s = await startOpenAIServer({ rules: [] });
    open.push(s);
    const store = new MemoryThreadStore();
    const a = await codexHost(s, store, (item) => open.push(item));
    const b = await host(s, store);
    await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
    await drain(a.agent.thread("chat").stream("turn two [chat-t2]"));
    const [file] = rollouts(a.env.codexHome);
    const copy = readFileSync(file!);
    rmSync(file!);
    writeFileSync(file!, copy);
    const three = await drain(a.agent.thread("chat").stream("turn three [chat-t3]"));
    expect(three.text).toMatch(/3 user message/);
    expect(three.notices).not.toContain("session not stored");
    expect(readFileSync(file!, "utf8")).toContain("[chat-t3]");
    const four = await drain(a.agent.thread("chat").stream("turn four [chat-t4]", { spawn: true }));
    expect(four.text).toMatch(/4 user message/);
    const five = await drain(b.thread("chat").stream("turn five [chat-t5]"));
    expect(five.notices).toContain("session restored");
    expect(five.text).toMatch(/5 user message/);
  });

  it("links planted in place of a rollout (a hard link) and of a sessions folder (a symbolic link) are removed: nothing is written through them, and the stored rollout is restored inside CODEX_HOME", async () => {
    const s = await startOpenAIServer({ rules: [] });
    open.push(s);
    const store = new MemoryThreadStore();
    const a = await codexHost(s, store, (item) => open.push(item));
    const b = await codexHost(s, store, (item) => open.push(item));
    await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
    await drain(a.agent.thread("chat").stream("turn two [chat-t2]"));
    const [file] = rollouts(a.env.codexHome);
    const stored = readFileSync(file!);
    const victim = join(a.env.workDir, "victim.jsonl");
    writeFileSync(victim, stored);
    rmSync(file!);
    linkSync(victim, file!);
    const three = await drain(a.agent.thread("chat").stream("turn three [chat-t3]"));
    expect(three.text).toMatch(/3 user message/);
    expect(readFileSync(victim).equals(stored)).toBe(true);
    expect(statSync(file!).nlink).toBe(1);
    // Host B: its day folder of the thread's rollout is a link to a folder outside CODEX_HOME.
    const outside = mkdtempSync(join(tmpdir(), "adaptor-outside-"));
    open.push({ close: async () => rmSync(outside, { recursive: true, force: true }) });
    const day = join(b.env.codexHome, dirname(file!).slice(a.env.codexHome.length + 1));
    mkdirSync(dirname(day), { recursive: true });
    rmSync(day, { recursive: true, force: true });
    symlinkSync(outside, day);
    const four = await drain(b.agent.thread("chat").stream("turn four [chat-t4]"));
    expect(four.text).toMatch(/4 user message/);
    expect(readdirSync(outside)).toEqual([]);
    expect(lstatSync(day).isDirectory()).toBe(true);
  });
});
