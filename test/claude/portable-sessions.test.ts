import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import Database from "better-sqlite3";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import {
  Agent,
  ErrThreadIncompatible,
  ErrThreadSessionCorrupt,
  ErrThreadSessionRewritten,
  ErrThreadSessionTooLarge,
  ThreadSessionError,
  findError,
  isError,
  type AgentEvent,
  type AgentOptions,
  type Stream,
} from "adaptor";
import { claude, type ClaudeDriver } from "@adaptor/claude";
import { closedAfterEach } from "../support/closed-after-each.js";

// Portable sessions on the real claude binary: two hosts (own CLI home, own working directory) share
// one store; each turn lands on either host and continues the same conversation.

const open = closedAfterEach();

async function server(): Promise<AnthropicServer> {
  const s = await startAnthropicServer({ rules: [] });
  open.push(s);
  return s;
}

async function host(
  s: AnthropicServer,
  store: ThreadStore,
  options: AgentOptions = {},
  shareWorkspace = true,
): Promise<{ env: ClaudeTestEnv; agent: Agent }> {
  const env = await claudeTestEnv({ server: s });
  open.push({ close: () => env.cleanup() });
  // The cwd is an Agent option, so it is part of each thread's fingerprint unless `workspace` names the workspace.
  const agent = new Agent(claude({ env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: store,
    cwd: env.workDir,
    ...(shareWorkspace ? { workspace: "git@example.com:acme/app.git" } : {}),
    ...options,
  });
  open.push(agent);
  return { env, agent };
}

/** A scripted server, a SQLite store in a temporary folder's file (`dir`, `path`), and two hosts `a` and `b` sharing it. */
async function sqliteHosts(): Promise<{
  s: AnthropicServer;
  dir: string;
  path: string;
  store: SqliteThreadStore;
  a: Awaited<ReturnType<typeof host>>;
  b: Awaited<ReturnType<typeof host>>;
}> {
  const s = await server();
  const dir = mkdtempSync(join(tmpdir(), "adaptor-sessions-"));
  open.push({ close: async () => rmSync(dir, { recursive: true, force: true }) });
  const path = join(dir, "threads.db");
  const store = new SqliteThreadStore({ path });
  open.push(store);
  return { s, dir, path, store, a: await host(s, store), b: await host(s, store) };
}

async function drain(stream: Stream): Promise<{ text: string; notices: { message: string; data?: Record<string, unknown> }[] }> {
  const notices: { message: string; data?: Record<string, unknown> }[] = [];
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "notice") notices.push({ message: event.message ?? "", ...(event.data ? { data: event.data } : {}) });
  }
  return { text: (await stream.result()).text, notices };
}

function transcripts(configDir: string): string[] {
  const projects = join(configDir, "projects");
  return readdirSync(projects).flatMap((dir) =>
    readdirSync(join(projects, dir))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(projects, dir, f)),
  );
}

/** Whether process `pid` still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `store` breaking finalize's both-or-neither from its second state write on: the record is
 * written, the session state stays as the first write left it. `unlogged`: its manifests read as
 * an earlier version wrote them (no turn log).
 */
function keepingOldState(store: MemoryThreadStore, { unlogged = false } = {}): ThreadStore {
  let writes = 0;
  const state = store.sessionState!;
  return {
    resolve: (q, signal) => store.resolve(q, signal),
    acquireLease: (key, owner, ttl, signal) => store.acquireLease(key, owner, ttl, signal),
    renewLease: (lease, ttl, signal) => store.renewLease(lease, ttl, signal),
    releaseLease: (lease, signal) => store.releaseLease(lease, signal),
    finalize: ({ sessionState, ...request }, signal) =>
      store.finalize({ ...request, ...(sessionState && ++writes === 1 ? { sessionState } : {}) }, signal),
    close: () => store.close(),
    sessionState: {
      read: async (id, signal) => {
        const read = await state.read(id, signal);
        if (!read || !unlogged) return read;
        const { turns: _none, ...manifest } = read.manifest as Record<string, unknown>;
        return { ...read, manifest };
      },
      segments: (id, signal) => state.segments(id, signal),
    },
  };
}

/** Hosts `a` and `b` on one server and store after two turns of thread `chat` on `a`; `file`: a's transcript. */
async function twoTurnsOnA(): Promise<{
  s: AnthropicServer;
  a: Awaited<ReturnType<typeof host>>;
  b: Awaited<ReturnType<typeof host>>;
  file: string;
}> {
  const s = await server();
  const store = new MemoryThreadStore();
  const a = await host(s, store);
  const b = await host(s, store);
  await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
  await drain(a.agent.thread("chat").stream("turn two [chat-t2]"));
  return { s, a, b, file: transcripts(a.env.configDir)[0]! };
}

describe("claude portable sessions on the real binary", { timeout: 120_000 }, () => {
  it("turns alternate between two hosts with different CLI homes and working directories; the model sees the whole history every turn", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const b = await host(s, store);
    const order = [a, b, b, a, b];
    const seen: string[] = [];
    const appended: unknown[] = [];
    for (const [i, at] of order.entries()) {
      const turn = await drain(at.agent.thread("chat").stream(`turn ${i + 1} [chat-t${i + 1}]`));
      seen.push(turn.text);
      const restored = turn.notices.find((n) => n.message === "session restored");
      if (i > 0 && order[i - 1] !== at) expect(restored).toBeDefined();
      appended.push(restored?.data?.appended);
    }
    // A host without the transcript gets it whole; one that holds an older copy gets only the later turns appended.
    expect(appended).toEqual([undefined, false, undefined, true, true]);
    expect(seen.map((text) => /I saw (\d+) message/.exec(text)?.[1])).toEqual(["1", "3", "5", "7", "9"]);
    const last = JSON.stringify(s.requests.at(-1)!.body);
    for (let t = 1; t <= 5; t++) expect(last).toContain(`[chat-t${t}]`);
    // Each host holds one copy, under its own working directory's project folder.
    expect(transcripts(b.env.configDir)).toHaveLength(1);
    expect(transcripts(b.env.configDir)[0]).toContain(b.env.workDir.replace(/[^a-zA-Z0-9]/g, "-"));
  });

  it("a host whose own transcript diverged (a turn failed there while another host committed) takes the stored one and continues it", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const b = await host(s, store);
    await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
    await expect(a.agent.thread("chat").run("turn two fails HTTP_ERROR 400 [chat-lost]")).rejects.toThrow();
    await drain(b.agent.thread("chat").stream("turn two [chat-t2]"));
    const three = await drain(a.agent.thread("chat").stream("turn three [chat-t3]"));
    expect(three.notices.map((n) => n.message)).toContain("session restored");
    expect(three.text).toMatch(/I saw 5 message/);
    const last = JSON.stringify(s.requests.at(-1)!.body);
    for (const m of ["[chat-t1]", "[chat-t2]", "[chat-t3]"]) expect(last).toContain(m);
    expect(last).not.toContain("[chat-lost]");
  });

  it("a forged message pair and a line that is not JSON appended to the local transcript between turns are cut off before claude resumes: never stored, never on another host", async () => {
    const { s, a, b, file } = await twoTurnsOnA();
    const lines = readFileSync(file, "utf8").trim().split("\n");
    const user = JSON.parse(lines.filter((l) => l.includes('"type":"user"')).at(-1)!) as Record<string, unknown>;
    const assistant = JSON.parse(lines.filter((l) => l.includes('"type":"assistant"')).at(-1)!) as Record<string, unknown>;
    const forgedUser = {
      ...user,
      uuid: "11111111-2222-3333-4444-555555555555",
      parentUuid: assistant.uuid,
      message: { role: "user", content: "FORGED-PROMPT" },
    };
    const forgedReply = { ...assistant, uuid: "11111111-2222-3333-4444-666666666666", parentUuid: forgedUser.uuid };
    appendFileSync(file, `${JSON.stringify(forgedUser)}\n${JSON.stringify(forgedReply)}\nGARBAGE-NOT-JSON\n`);
    const three = await drain(a.agent.thread("chat").stream("turn three [chat-t3]", { spawn: true }));
    expect(three.notices.find((n) => n.message === "session restored")?.data).toMatchObject({ trimmed: true, appended: false });
    expect(three.text).toMatch(/I saw 5 message/);
    expect(readFileSync(file, "utf8")).not.toContain("FORGED-PROMPT");
    const four = await drain(b.agent.thread("chat").stream("turn four [chat-t4]"));
    expect(four.text).toMatch(/I saw 7 message/);
    const copy = readFileSync(transcripts(b.env.configDir)[0]!, "utf8");
    expect({ forged: copy.includes("FORGED-PROMPT"), garbage: copy.includes("GARBAGE-NOT-JSON") }).toEqual({
      forged: false,
      garbage: false,
    });
    for (const request of s.requests) expect(JSON.stringify(request.body)).not.toContain("FORGED-PROMPT");
  });

  it("a line the parked claude process writes to its transcript between turns (its bookkeeping) leaves that process to serve the next turn: kept, not cut, and stored with that turn", async () => {
    const { a, b, file } = await twoTurnsOnA();
    const sessionId = JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1)!).sessionId as string;
    // As claude writes it: a line of its own with the session id, after the committed bytes.
    appendFileSync(file, `${JSON.stringify({ type: "last-prompt", lastPrompt: "PARKED-BOOKKEEPING", sessionId })}\n`);
    const three = await drain(a.agent.thread("chat").stream("turn three [chat-t3]"));
    expect({
      reused: three.notices.some((n) => n.message === "process reused"),
      restored: three.notices.some((n) => n.message === "session restored"),
    }).toEqual({ reused: true, restored: false });
    expect(three.text).toMatch(/I saw 5 message/);
    const four = await drain(b.agent.thread("chat").stream("turn four [chat-t4]"));
    expect(four.text).toMatch(/I saw 7 message/);
    expect(readFileSync(transcripts(b.env.configDir)[0]!, "utf8")).toContain("PARKED-BOOKKEEPING");
  });

  it("a symbolic link planted in place of the transcript is removed before the parked process is ended: nothing is written through it, and the stored transcript is restored", async () => {
    const { a, file } = await twoTurnsOnA();
    const victim = join(a.env.workDir, "victim.txt");
    writeFileSync(victim, "VICTIM\n");
    rmSync(file);
    symlinkSync(victim, file);
    const three = await drain(a.agent.thread("chat").stream("turn three [chat-t3]", { spawn: true }));
    expect(three.text).toMatch(/I saw 5 message/);
    expect(readFileSync(victim, "utf8")).toBe("VICTIM\n");
    expect(lstatSync(file).isFile()).toBe(true);
  });

  it("a hard link planted in place of the transcript is removed before the parked process is ended: its exit lines never reach the linked file, and the stored transcript is restored", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
    await drain(a.agent.thread("chat").stream("turn two [chat-t2]"));
    const [file] = transcripts(a.env.configDir);
    const victim = join(a.env.workDir, "victim.txt");
    writeFileSync(victim, "VICTIM\n");
    rmSync(file!);
    linkSync(victim, file!);
    const three = await drain(a.agent.thread("chat").stream("turn three [chat-t3]", { spawn: true }));
    expect(three.text).toMatch(/I saw 5 message/);
    expect(readFileSync(victim, "utf8")).toBe("VICTIM\n");
    expect(statSync(file!).nlink).toBe(1);
  });

  it("a hard link to an outside file holding the stored bytes is not kept as the local copy: the next turn is written into a file of the CLI home's own, never into the linked file", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
    await drain(a.agent.thread("chat").stream("turn two [chat-t2]"));
    const [file] = transcripts(a.env.configDir);
    const victim = join(a.env.workDir, "victim.jsonl");
    const stored = readFileSync(file!);
    writeFileSync(victim, stored);
    rmSync(file!);
    linkSync(victim, file!);
    const three = await drain(a.agent.thread("chat").stream("turn three [chat-t3]"));
    expect(three.text).toMatch(/I saw 5 message/);
    expect(readFileSync(victim).equals(stored)).toBe(true);
    expect(statSync(file!).nlink).toBe(1);
    expect(readFileSync(file!, "utf8")).toContain("[chat-t3]");
  });

  it.each<[string, (file: string, outside: string) => string]>([
    ["symbolic link", (file, outside) => `cp ${file} ${outside} && rm ${file} && ln -s ${outside} ${file}`],
    ["hard link", (file, outside) => `ln ${file} ${outside}`],
  ])(
    "a %s put in place of the transcript during a turn fails that turn with ErrThreadSessionRewritten under best effort too: the stored history stays at the previous turn, both hosts continue from it, and nothing more reaches the linked file",
    async (_link, swap) => {
      const s = await server();
      const dir = mkdtempSync(join(tmpdir(), "adaptor-claude-link-"));
      open.push({ close: () => rmSync(dir, { recursive: true, force: true }) });
      const store = new SqliteThreadStore({ path: join(dir, "threads.db") });
      open.push(store);
      const a = await host(s, store);
      const b = await host(s, store);
      await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
      const before = await store.resolve({ key: "chat" });
      const [file] = transcripts(a.env.configDir);
      const outside = join(dir, "outside.jsonl");
      // The turn's own tool call links the transcript to a file outside the CLI home; the CLI appends
      // the rest of the turn through the link.
      const err = await a.agent
        .thread("chat")
        .run(`SHELL_CMD ${swap(file!, outside)}`, { policy: { sandbox: "unrestricted" } })
        .catch((e: unknown) => e);
      expect(lstatSync(file!).isSymbolicLink() || lstatSync(file!).nlink === 2).toBe(true);
      const typed = findError(err, ThreadSessionError);
      expect(typed?.reason).toBe("rewritten");
      expect(isError(err, ErrThreadSessionRewritten)).toBe(true);
      expect(typed?.result?.text).toMatch(/^Done:/);
      expect((await store.resolve({ key: "chat" }))?.revision).toBe(before?.revision);
      const written = readFileSync(outside);
      const three = await drain(a.agent.thread("chat").stream("turn three [chat-t3]"));
      expect(three.text).toMatch(/I saw 3 message/);
      expect(lstatSync(file!).isFile()).toBe(true);
      const four = await drain(b.agent.thread("chat").stream("turn four [chat-t4]"));
      expect(four.text).toMatch(/I saw 5 message/);
      const last = JSON.stringify(s.requests.at(-1)!.body);
      for (const m of ["[chat-t1]", "[chat-t3]", "[chat-t4]"]) expect(last).toContain(m);
      expect(last).not.toContain("SHELL_CMD");
      await a.agent.close();
      expect(readFileSync(outside).equals(written)).toBe(true);
    },
  );

  it("a symbolic link planted in place of a parked process's transcript is removed before close() ends that process: its exit lines never reach the linked file", async () => {
    const { a, file } = await twoTurnsOnA();
    expect((a.agent.driver as ClaudeDriver).parkedProcesses).toBe(1);
    const victim = join(a.env.workDir, "victim.jsonl");
    const stored = readFileSync(file);
    writeFileSync(victim, stored);
    rmSync(file);
    symlinkSync(victim, file);
    await a.agent.close();
    expect(readFileSync(victim).equals(stored)).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it("a symbolic link planted in place of a parked process's transcript is removed before the idle timeout ends that process: its exit lines never reach the linked file", async () => {
    const s = await server();
    const env = await claudeTestEnv({ server: s });
    open.push({ close: () => env.cleanup() });
    const driver = claude({ env: env.env, inheritEnv: false, model: "claude-sonnet-4-5", idleMs: 5_000 });
    const agent = new Agent(driver, { threadStore: new MemoryThreadStore(), cwd: env.workDir });
    open.push(agent);
    let pid = 0;
    for await (const event of agent.thread("chat").stream("turn one [chat-t1]") as AsyncIterable<AgentEvent>)
      if (event.type === "process" && event.kind === "spawn") pid = event.pid ?? 0;
    const [file] = transcripts(env.configDir);
    const victim = join(env.workDir, "victim.jsonl");
    const stored = readFileSync(file!);
    writeFileSync(victim, stored);
    rmSync(file!);
    symlinkSync(victim, file!);
    expect(driver.parkedProcesses).toBe(1);
    while (driver.parkedProcesses > 0 || alive(pid)) await sleep(100);
    expect(readFileSync(victim).equals(stored)).toBe(true);
    expect(existsSync(file!)).toBe(false);
  });

  it("a symbolic link planted in place of the project folder on another host is removed: the restore writes the transcript inside the CLI home, nothing outside it", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const b = await host(s, store);
    await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
    await drain(a.agent.thread("chat").stream("turn two [chat-t2]"));
    const outside = mkdtempSync(join(tmpdir(), "adaptor-outside-"));
    open.push({ close: async () => rmSync(outside, { recursive: true, force: true }) });
    const folder = join(b.env.configDir, "projects", b.env.workDir.replace(/[^a-zA-Z0-9]/g, "-"));
    mkdirSync(join(b.env.configDir, "projects"), { recursive: true });
    rmSync(folder, { recursive: true, force: true });
    symlinkSync(outside, folder);
    const three = await drain(b.agent.thread("chat").stream("turn three [chat-t3]"));
    expect(three.text).toMatch(/I saw 5 message/);
    expect(readdirSync(outside)).toEqual([]);
    expect(lstatSync(folder).isDirectory()).toBe(true);
    expect(readFileSync(transcripts(b.env.configDir)[0]!, "utf8")).toContain("[chat-t3]");
  });

  it("a same-length edit of the transcript before its last 64 KiB between turns (the first prompt blanked) is replaced by the stored bytes, on a live host and after a restart; nothing edited is committed", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const first = "ORIGINAL-FIRST-PROMPT turn 1";
    await drain(a.agent.thread("k").stream(first));
    await drain(a.agent.thread("k").stream("turn 2"));
    const [file] = transcripts(a.env.configDir);
    const blank = (): number => {
      const before = readFileSync(file!, "utf8");
      const at = Buffer.byteLength(before.slice(0, before.indexOf(first)));
      expect(at).toBeLessThan(Buffer.byteLength(before) - 64 * 1024);
      const after = before.replace(first, " ".repeat(first.length));
      expect(Buffer.byteLength(after)).toBe(Buffer.byteLength(before));
      writeFileSync(file!, after, { flag: "r+" });
      return at;
    };
    // Its parked process would serve the turn from memory; the edited copy would go on in the file.
    blank();
    const three = await drain(a.agent.thread("k").stream("turn 3"));
    expect(three.notices.map((n) => n.message)).toContain("session restored");
    expect(three.text).toMatch(/I saw 5 message\(s\); first user text: "ORIGINAL-FIRST-PROMPT turn 1"/);
    // A restarted host (a new Agent on the same CLI home) has verified nothing: checked whole.
    const at = blank();
    await a.agent.close();
    const restarted = new Agent(claude({ env: a.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: store,
      cwd: a.env.workDir,
      workspace: "git@example.com:acme/app.git",
    });
    open.push(restarted);
    const four = await drain(restarted.thread("k").stream("turn 4"));
    expect(four.notices.map((n) => n.message)).toContain("session restored");
    expect(four.text).toMatch(/I saw 7 message\(s\); first user text: "ORIGINAL-FIRST-PROMPT turn 1"/);
    expect(Buffer.byteLength(readFileSync(file!, "utf8").slice(0, readFileSync(file!, "utf8").indexOf(first)))).toBe(at);
    // Untouched since, the next turn keeps the copy.
    const five = await drain(restarted.thread("k").stream("turn 5"));
    expect(five.notices.map((n) => n.message)).not.toContain("session restored");
    expect(five.text).toMatch(/I saw 9 message\(s\); first user text: "ORIGINAL-FIRST-PROMPT turn 1"/);
  });

  it("a deleted local transcript is restored from the store instead of starting a fresh conversation", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    await drain(a.agent.thread("k").stream("one"));
    await drain(a.agent.thread("k").stream("two", { spawn: true }));
    for (const file of transcripts(a.env.configDir)) rmSync(file);
    const third = await drain(a.agent.thread("k").stream("three", { spawn: true }));
    expect(third.notices.map((n) => n.message)).toContain("session restored");
    expect(third.text).toMatch(/I saw 5 message/);
  });

  it("a FIFO, a sparse 2 GiB file or a directory in place of the local transcript is restored over from the store, never waited on or read; the directory is moved aside beside it with what it holds", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    await drain(a.agent.thread("k").stream("one"));
    const [file] = transcripts(a.env.configDir);
    rmSync(file!);
    execFileSync("mkfifo", [file!]);
    const two = await drain(a.agent.thread("k").stream("two", { spawn: true }));
    expect(two.notices.map((n) => n.message)).toContain("session restored");
    expect(two.text).toMatch(/I saw 3 message/);
    expect(statSync(file!).isFile()).toBe(true);
    truncateSync(file!, 2 * 1024 ** 3);
    const three = await drain(a.agent.thread("k").stream("three", { spawn: true }));
    expect(three.notices.map((n) => n.message)).toContain("session restored");
    expect(three.text).toMatch(/I saw 5 message/);
    expect(statSync(file!).size).toBeLessThan(1024 * 1024);
    rmSync(file!);
    mkdirSync(file!);
    writeFileSync(join(file!, "kept"), "theirs\n");
    const four = await drain(a.agent.thread("k").stream("four", { spawn: true }));
    expect(four.notices.map((n) => n.message)).toContain("session restored");
    expect(four.text).toMatch(/I saw 7 message/);
    expect(lstatSync(file!).isFile()).toBe(true);
    const folder = join(file!, "..");
    const aside = readdirSync(folder).filter((name) => name.startsWith(`.${basename(file!)}.adaptor-displaced-`));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(folder, aside[0]!, "kept"), "utf8")).toBe("theirs\n");
  });

  it("without the store capability a missing transcript falls back to a fresh conversation with a typed notice", async () => {
    const s = await server();
    const store = new MemoryThreadStore({ sessionState: false });
    const a = await host(s, store);
    await drain(a.agent.thread("k").stream("one"));
    for (const file of transcripts(a.env.configDir)) rmSync(file);
    const second = await drain(a.agent.thread("k").stream("two", { spawn: true }));
    const fallback = second.notices.find((n) => n.message === "resume rejected; starting a fresh conversation");
    expect(fallback?.data).toMatchObject({ threadKey: "k", cause: "session_files_missing" });
    expect(second.text).toMatch(/I saw 1 message/);
  });

  it("over the per-thread size limit: best effort commits the checkpoint without the session files (notice cause too_large); strict fails with ErrThreadSessionTooLarge carrying the Result and keeps the previous checkpoint", async () => {
    const s = await server();
    // Random text does not compress: this turn's transcript lines alone are over the limit.
    const noise = Array.from({ length: 200_000 }, () => String.fromCharCode(33 + Math.floor(Math.random() * 90))).join("");
    const store = new MemoryThreadStore();
    const lenient = await host(s, store, { sessionStateLimitBytes: 120_000 });
    await drain(lenient.agent.thread("k").stream("short"));
    const big = await drain(lenient.agent.thread("k").stream(`long ${noise}`));
    expect(big.text).toMatch(/I saw 3 message/);
    expect(big.notices.find((n) => n.message === "session not stored")?.data).toMatchObject({ threadKey: "k", cause: "too_large" });
    expect((await store.resolve({ key: "k" }))?.codec).toBe("json/v1;session=local");
    expect((await lenient.agent.thread("k").run("after")).text).toMatch(/I saw 5 message/);

    const strictStore = new MemoryThreadStore();
    const a = await host(s, strictStore, { sessionStateLimitBytes: 120_000, sessionPortability: "strict" });
    await drain(a.agent.thread("k").stream("short"));
    const before = await strictStore.resolve({ key: "k" });
    const stored = await strictStore.sessionState!.read(before!.id);
    expect(stored!.bytes).toBeLessThanOrEqual(120_000);
    const err = await a.agent
      .thread("k")
      .run(`long ${noise}`)
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadSessionTooLarge)).toBe(true);
    expect(findError(err, ThreadSessionError)?.result?.text).toMatch(/I saw 3 message/);
    const after = await strictStore.resolve({ key: "k" });
    expect(after?.revision).toBe(before?.revision);
    expect(after?.checkpoint).toStrictEqual(before?.checkpoint);
  });

  it("a transcript the CLI rewrote mid-turn (deleted, then written again with only the turn's tail) is never stored: ErrThreadSessionRewritten with the turn's Result; another host's next turn sees the whole committed history", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const b = await host(s, store);
    await drain(a.agent.thread("chat").stream("turn one [chat-t1]"));
    await drain(a.agent.thread("chat").stream("turn two [chat-t2]"));
    const before = await store.resolve({ key: "chat" });
    const stored = await store.sessionState!.read(before!.id);
    const [file] = transcripts(a.env.configDir);
    const storedBytes = statSync(file!).size;
    // The turn's own tool call deletes the transcript; the CLI goes on writing the turn's tail.
    const err = await a.agent
      .thread("chat")
      .run(`SHELL_CMD rm -f ${file}`, { policy: { sandbox: "unrestricted" } })
      .catch((e: unknown) => e);
    expect(statSync(file!).size).toBeLessThan(storedBytes);
    const typed = findError(err, ThreadSessionError);
    expect(typed?.reason).toBe("rewritten");
    expect(isError(err, ErrThreadSessionRewritten)).toBe(true);
    expect(typed?.result?.text).toMatch(/^Done:/);
    const after = await store.resolve({ key: "chat" });
    expect(after?.revision).toBe(before?.revision);
    expect(await store.sessionState!.read(before!.id)).toStrictEqual(stored);
    const three = await drain(b.agent.thread("chat").stream("turn three [chat-t3]"));
    expect(three.notices.map((n) => n.message)).toContain("session restored");
    expect(three.text).toMatch(/I saw 5 message/);
    const last = JSON.stringify(s.requests.at(-1)!.body);
    for (const m of ["[chat-t1]", "[chat-t2]", "[chat-t3]"]) expect(last).toContain(m);
  });

  it("without a shared workspace name, two working directories are incompatible (typed), not silently forked", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store, {}, false);
    const b = await host(s, store, {}, false);
    await drain(a.agent.thread("k").stream("one"));
    const err = await b.agent
      .thread("k")
      .run("two")
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadIncompatible)).toBe(true);
  });

  it("a store that wrote the last turn's record but kept the previous session state: another host gets ThreadSessionError stale before the CLI starts; with a manifest without a turn log, claude's rejection of the checkpoint is stale too, never a fresh conversation", async () => {
    const s = await server();
    const memory = new MemoryThreadStore();
    const store = keepingOldState(memory);
    const a = await host(s, store);
    await drain(a.agent.thread("chat").stream("one [stale-1]"));
    await drain(a.agent.thread("chat").stream("two [stale-2]"));
    const before = await memory.resolve({ key: "chat" });
    expect(before?.codec).toBe("json/v1;session=stored");
    const requests = s.requests.length;
    const b = await host(s, store);
    const err = await b.agent
      .thread("chat")
      .run("three")
      .catch((e: unknown) => e);
    expect(findError(err, ThreadSessionError)?.reason).toBe("stale");
    expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
    expect(s.requests.length).toBe(requests);
    const c = await host(s, keepingOldState(memory, { unlogged: true }));
    const rejected = await c.agent
      .thread("chat")
      .run("three")
      .catch((e: unknown) => e);
    expect(findError(rejected, ThreadSessionError)?.reason).toBe("stale");
    expect(findError(rejected, ThreadSessionError)?.message).toContain("No message found");
    expect(s.requests.length).toBe(requests);
    expect(await memory.resolve({ key: "chat" })).toStrictEqual(before);
  });

  it("damaged stored state in SQLite (the state row deleted, a segment truncated, the manifest cut short) is ThreadSessionError missing / damaged (ErrThreadSessionCorrupt) on a host without the transcript, never a fresh conversation; the host that holds it continues", async () => {
    const { s, path, store, a, b } = await sqliteHosts();
    await drain(a.agent.thread("gone").stream("one [gone-1]"));
    await drain(a.agent.thread("cut").stream("one [cut-1]"));
    await drain(a.agent.thread("garbled").stream("one [garbled-1]"));
    const db = new Database(path);
    const idOf = async (key: string): Promise<string> => (await store.resolve({ key }))!.id;
    db.prepare("DELETE FROM adaptor_thread_sessions WHERE record_id = ?").run(await idOf("gone"));
    db.prepare("UPDATE adaptor_thread_session_segments SET data = substr(data, 1, 20) WHERE record_id = ?").run(await idOf("cut"));
    db.prepare('UPDATE adaptor_thread_sessions SET manifest_json = \'{"v":1,"fi\' WHERE record_id = ?').run(await idOf("garbled"));
    db.close();
    const requests = s.requests.length;
    for (const [key, reason] of [
      ["gone", "missing"],
      ["cut", "damaged"],
      ["garbled", "damaged"],
    ] as const) {
      const err = await b.agent
        .thread(key)
        .run("two")
        .catch((e: unknown) => e);
      expect(findError(err, ThreadSessionError)?.reason).toBe(reason);
      expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
    }
    expect(s.requests.length).toBe(requests);
    const own = await drain(a.agent.thread("gone").stream("two [gone-2]", { spawn: true }));
    expect(own.notices.map((n) => n.message)).toContain("session state missing; continuing from this host's copy");
    expect(own.text).toMatch(/I saw 3 message/);
    const three = await drain(b.agent.thread("gone").stream("three [gone-3]"));
    expect(three.notices.map((n) => n.message)).toContain("session restored");
    expect(three.text).toMatch(/I saw 5 message/);
  });

  it("a stored manifest edited in SQLite (the transcript named under another folder or outside the CLI home, its segments reordered with their hashes) is ThreadSessionError damaged on a host without the transcript, before anything is written or claude starts", async () => {
    const { s, dir, path, store, a, b } = await sqliteHosts();
    for (const key of ["sub", "up", "order"]) await drain(a.agent.thread(key).stream(`one [${key}-1]`));
    await drain(a.agent.thread("order").stream("two [order-2]"));
    const db = new Database(path);
    type Manifest = { files: { name: string; segments: number[]; segmentSha256: string[] }[] };
    const edit = async (key: string, change: (m: Manifest) => void): Promise<void> => {
      const id = (await store.resolve({ key }))!.id;
      const row = db.prepare("SELECT manifest_json FROM adaptor_thread_sessions WHERE record_id = ?").get(id) as { manifest_json: string };
      const manifest = JSON.parse(row.manifest_json) as Manifest;
      change(manifest);
      db.prepare("UPDATE adaptor_thread_sessions SET manifest_json = ? WHERE record_id = ?").run(JSON.stringify(manifest), id);
    };
    const outside = join(dir, "outside.jsonl");
    await edit("sub", (m) => (m.files[0]!.name = `a/b/${m.files[0]!.name}`));
    await edit("up", (m) => (m.files[0]!.name = `../../../../../../../..${outside}`));
    await edit("order", (m) => {
      expect(m.files[0]!.segments).toEqual([0, 1]);
      m.files[0]!.segments.reverse();
      m.files[0]!.segmentSha256.reverse();
    });
    db.close();
    const requests = s.requests.length;
    for (const key of ["sub", "up", "order"]) {
      const err = await b.agent
        .thread(key)
        .run("three")
        .catch((e: unknown) => e);
      expect(findError(err, ThreadSessionError)?.reason, key).toBe("damaged");
      expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
    }
    expect(s.requests.length).toBe(requests);
    expect(existsSync(outside)).toBe(false);
    // Claude never ran on that host, and the restore wrote nothing there.
    expect(existsSync(join(b.env.configDir, "projects"))).toBe(false);
  });

  it("damaged and stale stored state in SQLite (a middle segment row lost; the session tables rolled back to an earlier turn) fails on every host, also the one that ran every turn; once the record's session rows are deleted, as docs/errors.md tells an operator, that host continues from its copy and stores it again, and another host then continues the whole conversation", async () => {
    const { path, store, a, b } = await sqliteHosts();
    for (const key of ["lost", "rolled"]) {
      await drain(a.agent.thread(key).stream(`one [${key}-1]`));
      await drain(a.agent.thread(key).stream(`two [${key}-2]`));
    }
    const db = new Database(path);
    const idOf = async (key: string): Promise<string> => (await store.resolve({ key }))!.id;
    const rolled = await idOf("rolled");
    const sessionRow = db.prepare("SELECT * FROM adaptor_thread_sessions WHERE record_id = ?").get(rolled) as Record<string, unknown>;
    const segmentRows = db.prepare("SELECT * FROM adaptor_thread_session_segments WHERE record_id = ?").all(rolled) as Record<
      string,
      unknown
    >[];
    for (const key of ["lost", "rolled"]) await drain(a.agent.thread(key).stream(`three [${key}-3]`));
    const lost = await idOf("lost");
    db.prepare("DELETE FROM adaptor_thread_session_segments WHERE record_id = ? AND seq = 1").run(lost);
    const restoreRows = (table: string, rows: Record<string, unknown>[]) => {
      db.prepare(`DELETE FROM ${table} WHERE record_id = ?`).run(rolled);
      for (const row of rows) {
        const columns = Object.keys(row);
        db.prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`).run(row);
      }
    };
    restoreRows("adaptor_thread_sessions", [sessionRow]);
    restoreRows("adaptor_thread_session_segments", segmentRows);
    for (const [key, reason] of [
      ["lost", "damaged"],
      ["rolled", "stale"],
    ] as const) {
      for (const [agent, spawn] of [
        [a.agent, true],
        [b.agent, false],
      ] as const) {
        const err = await agent
          .thread(key)
          .run("four", { spawn })
          .catch((e: unknown) => e);
        expect(findError(err, ThreadSessionError)?.reason).toBe(reason);
        expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
      }
      // The operator's recovery: the record's stored session state removed, so it is missing.
      const id = await idOf(key);
      db.prepare("DELETE FROM adaptor_thread_session_segments WHERE record_id = ?").run(id);
      db.prepare("DELETE FROM adaptor_thread_sessions WHERE record_id = ?").run(id);
      const own = await drain(a.agent.thread(key).stream(`four [${key}-4]`, { spawn: true }));
      expect(own.notices.map((n) => n.message)).toContain("session state missing; continuing from this host's copy");
      expect(own.text).toMatch(/I saw 7 message/);
      const five = await drain(b.agent.thread(key).stream(`five [${key}-5]`));
      expect(five.notices.map((n) => n.message)).toContain("session restored");
      expect(five.text).toMatch(/I saw 9 message/);
    }
    db.close();
  });
});
