import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import { startOpenAIServer, type OpenAIServer } from "@adaptor/testkit";
import { codex } from "@adaptor/codex";
import { Agent, ErrResumeRejected, isError, type AgentEvent } from "adaptor";
import { codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// A codex fork's rollout begins where its parent's left off: codex reads the parent's rollout
// (through the fork point) to resume the fork. On the real codex binary (app-server), two hosts
// (two codex homes) sharing one SQLite store: a fork made on one host continues on a host that
// never ran its parent, or holds an older copy of it; also a fork of a fork and a fork at an
// earlier turn.

const open = closedAfterEach();

async function setup(): Promise<{ s: OpenAIServer; a: Agent; b: Agent; store: SqliteThreadStore }> {
  const s = await startOpenAIServer({ rules: [] });
  open.push(s);
  const dir = mkdtempSync(join(tmpdir(), "adaptor-codex-lineage-"));
  open.push({ close: async () => rmSync(dir, { recursive: true, force: true }) });
  const store = new SqliteThreadStore({ path: join(dir, "threads.db") });
  open.push(store);
  const track = (item: { close(): Promise<void> }): void => void open.push(item);
  const a = (await codexHost(s, store, track)).agent;
  const b = (await codexHost(s, store, track)).agent;
  return { s, a, b, store };
}

interface StoredFile {
  readonly name: string;
  readonly bytes: number;
  readonly segments: readonly number[];
}

/** The files of thread `key`'s stored session state: each one's name, length, and the store's segments holding it. */
async function storedOf(store: ThreadStore, key: string): Promise<StoredFile[]> {
  const record = (await store.resolve({ key }))!;
  const state = (await store.sessionState!.read(record.id))!;
  return (state.manifest as { files: StoredFile[] }).files.map(({ name, bytes, segments }) => ({ name, bytes, segments }));
}

/** The user texts of the last model request. */
function lastUserTexts(s: OpenAIServer): readonly string[] {
  return s.responses().at(-1)!.view.userTexts;
}

describe("codex forks across hosts (real codex app-server, one SQLite store)", { timeout: 240_000 }, () => {
  it("a fork made on one host continues on a host that never ran its parent, with the parent's history", async () => {
    const { s, a, b, store } = await setup();
    await a.thread("parent").run("turn one [m-alpha]");
    await a.thread("parent").run("turn two [m-beta]");
    await a.thread("parent").fork("child").run("child turn [m-gamma]");
    const [parentFile] = await storedOf(store, "parent");
    const forkFiles = await storedOf(store, "child");
    // The fork's session holds the parent's rollout as it was at the fork point, beside its own.
    expect(forkFiles).toHaveLength(2);
    const inherited = forkFiles.find((file) => file.name === parentFile!.name);
    expect(inherited?.bytes).toBe(parentFile!.bytes);
    const continued = await b.thread("child").run("child again [m-delta]");
    expect(continued.text).toMatch(/4 user message/);
    expect(lastUserTexts(s)).toEqual(["turn one [m-alpha]", "turn two [m-beta]", "child turn [m-gamma]", "child again [m-delta]"]);
    // And back on the first host, after the other one added a turn.
    await a.thread("child").run("child third [m-epsilon]");
    expect(lastUserTexts(s).at(-2)).toBe("child again [m-delta]");
    // A warm turn on the same host restores nothing: its copy of the fork and of the parent is the stored one.
    const warm = a.thread("child").stream("child fourth [m-zeta]");
    const notices: (string | undefined)[] = [];
    for await (const event of warm as AsyncIterable<AgentEvent>) if (event.type === "notice") notices.push(event.message);
    expect((await warm.result()).status).toBe("completed");
    expect(notices).not.toContain("session restored");
    // Later fork turns store their own new bytes only: the parent's file stays in the segment stored with the first.
    expect((await storedOf(store, "child")).find((file) => file.name === parentFile!.name)).toEqual(inherited);
  });

  it("a fork of a fork, and a fork at an earlier turn, made where the parent is newer continue on a host holding an older copy of the parent", async () => {
    const { s, a, b } = await setup();
    await a.thread("parent").run("turn one [m-alpha]");
    await a.thread("parent").run("turn two [m-beta]");
    // B continues the parent (A's copy is now older), then forks it, and forks the fork.
    await b.thread("parent").run("turn three [m-gamma]");
    await b.thread("parent").fork("child").run("child turn [m-delta]");
    await b.thread("child").fork("grandchild").run("grandchild turn [m-epsilon]");
    await b.thread("parent").fork("early", { at: 2 }).run("early turn [m-zeta]");

    const grandchild = await a.thread("grandchild").run("grandchild again [m-eta]");
    expect(grandchild.text).toMatch(/6 user message/);
    const parentTurns = ["turn one [m-alpha]", "turn two [m-beta]", "turn three [m-gamma]"];
    expect(lastUserTexts(s)).toEqual([...parentTurns, "child turn [m-delta]", "grandchild turn [m-epsilon]", "grandchild again [m-eta]"]);
    await a.thread("early").run("early again [m-theta]");
    expect(lastUserTexts(s)).toEqual(["turn one [m-alpha]", "turn two [m-beta]", "early turn [m-zeta]", "early again [m-theta]"]);
    await a.thread("child").run("child again [m-iota]");
    expect(lastUserTexts(s)).toEqual([...parentTurns, "child turn [m-delta]", "child again [m-iota]"]);
    // The parent itself still continues on A from its own stored state.
    await a.thread("parent").run("turn four [m-kappa]");
    expect(lastUserTexts(s)).toEqual([...parentTurns, "turn four [m-kappa]"]);
  });

  it("a fork whose parent's history this host lacks (no portable sessions) is ErrResumeRejected, never a fresh conversation", async () => {
    const s = await startOpenAIServer({ rules: [] });
    open.push(s);
    // A store without the session-state capability: nothing restores the parent's rollout.
    const memory = new MemoryThreadStore();
    const store = new Proxy(memory, {
      get: (target, name) => {
        if (name === "sessionState") return undefined;
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as ThreadStore;
    const { agent, env } = await codexHost(s, store, (item) => void open.push(item));
    await agent.thread("parent").run("turn one [m-alpha]");
    const parentId = (await agent.thread("parent").checkpoint())!.checkpoint.resumeId;
    await agent.thread("parent").fork("child").run("child turn [m-beta]");
    await agent.close();
    // The parent's rollout goes away from this host's codex home.
    const sessions = join(env.env.CODEX_HOME!, "sessions");
    const found = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((name) => name.includes(parentId));
    expect(found.length).toBe(1);
    for (const name of found) rmSync(join(sessions, name));

    // A new Agent on the same host (the first one's parked codex process is gone with it).
    const again = new Agent(codex({ env: env.env, inheritEnv: false, killGraceMs: 1000 }), {
      threadStore: store,
      cwd: env.workDir,
      workspace: "git@example.com:acme/app.git",
    });
    open.push(again);
    const before = s.responses().length;
    const child = await again.thread("child").checkpoint();
    const error = await again
      .thread("child")
      .run("child again [m-gamma]")
      .catch((e: unknown) => e);
    expect(isError(error, ErrResumeRejected)).toBe(true);
    expect(String((error as Error).message)).toMatch(/lineage/);
    expect(s.responses().length).toBe(before);
    // The fork's record is kept as it was.
    expect((await again.thread("child").checkpoint())?.revision).toBe(child?.revision);
  });
});
