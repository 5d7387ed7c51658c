import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type LoggedRequest } from "@adaptor/testkit";
import { claude } from "@adaptor/claude";
import {
  Agent,
  ErrFeatureUnsupported,
  ErrInvalidOption,
  FeatureUnsupportedError,
  InvalidOptionError,
  findError,
  isError,
  type AgentEvent,
  type Result,
  type Thread,
} from "adaptor";
import { closedAfterEach } from "../support/closed-after-each.js";

// thread.fork(key, { at }) on the real claude binary: the fork's first turn resumes the parent's
// session at the chosen turn's last message (--resume-session-at, --fork-session), so the model
// sees the parent's turns through that one and none after it, on this host or on another one that
// shares the store; the parent goes on as it was.

const open = closedAfterEach();

async function server(): Promise<AnthropicServer> {
  const s = await startAnthropicServer({ rules: [] });
  open.push(s);
  return s;
}

/** An Agent on its own CLI home and working directory; hosts share the store and name the workspace. */
async function host(s: AnthropicServer, store: ThreadStore): Promise<Agent> {
  const env = await claudeTestEnv({ server: s });
  open.push({ close: () => env.cleanup() });
  const agent = new Agent(claude({ env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: store,
    cwd: env.workDir,
    workspace: "git@example.com:acme/app.git",
  });
  open.push(agent);
  return agent;
}

/** Runs `prompts` on `thread` one after the other; their Results. */
async function runTurns(thread: Thread, ...prompts: string[]): Promise<Result[]> {
  const results: Result[] = [];
  for (const prompt of prompts) results.push(await thread.run(prompt));
  return results;
}

/** The one model request whose last user text holds `marker`, as JSON. */
function requestWith(requests: readonly LoggedRequest[], marker: string): string {
  const found = requests.filter((request) => request.view.lastUserText.includes(marker));
  expect(found).toHaveLength(1);
  return JSON.stringify(found[0]!.body);
}

describe("thread.fork(key, { at }) on the real claude binary", { timeout: 180_000 }, () => {
  it("a fork at turn 2 of 3, run on another host, sends the model turns 1 and 2 only; the parent is unchanged and continues with all three", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const b = await host(s, store);
    const parent = a.thread("parent");
    await runTurns(parent, "turn one marker-alpha", "turn two marker-beta", "turn three marker-gamma");
    const before = await parent.checkpoint();

    const forked = await b.thread("parent").fork("child", { at: 2 }).run("fork turn marker-delta");
    expect(forked.text).toMatch(/I saw 5 message/); // turns one and two, their replies, the fork's prompt
    const seen = requestWith(s.requests, "marker-delta");
    expect(seen).toContain("marker-alpha");
    expect(seen).toContain("marker-beta");
    expect(seen).not.toContain("marker-gamma");
    expect(forked.sessionId).not.toBe(before?.checkpoint.resumeId);

    // The fork continues its own conversation, on either host.
    const again = await a.thread("child").run("fork again marker-epsilon");
    expect(again.text).toMatch(/I saw 7 message/);
    expect(requestWith(s.requests, "marker-epsilon")).not.toContain("marker-gamma");

    // The parent's record is as it was; its next turn sees all three turns.
    const after = await parent.checkpoint();
    expect({ id: after?.id, revision: after?.revision, checkpoint: after?.checkpoint }).toEqual({
      id: before?.id,
      revision: before?.revision,
      checkpoint: before?.checkpoint,
    });
    const next = await b.thread("parent").run("turn four marker-zeta");
    expect(next.text).toMatch(/I saw 7 message/);
    const parentSeen = requestWith(s.requests, "marker-zeta");
    expect(parentSeen).toContain("marker-gamma");
    expect(parentSeen).not.toContain("marker-delta");
  });

  it("a fork at the run id of the parent's first turn sees that turn only", async () => {
    const s = await server();
    const a = await host(s, new MemoryThreadStore());
    const parent = a.thread("parent");
    const [first] = await runTurns(parent, "turn one marker-alpha", "turn two marker-beta");
    const forked = await parent.fork("child", { at: first!.runId }).run("fork turn marker-delta");
    expect(forked.text).toMatch(/I saw 3 message/);
    const seen = requestWith(s.requests, "marker-delta");
    expect(seen).toContain("marker-alpha");
    expect(seen).not.toContain("marker-beta");
  });

  it("a fork of a fork at a turn it inherited from its parent, on another host sharing a SQLite store, sees the parent's turns through that one", async () => {
    const s = await server();
    const dir = mkdtempSync(join(tmpdir(), "adaptor-forkat-"));
    open.push({ close: async () => rmSync(dir, { recursive: true, force: true }) });
    const store = new SqliteThreadStore({ path: join(dir, "threads.db") });
    open.push(store);
    const a = await host(s, store);
    const b = await host(s, store);
    const parent = a.thread("parent");
    await runTurns(parent, "turn one marker-alpha", "turn two marker-beta", "turn three marker-gamma");
    await parent.fork("child", { at: 2 }).run("child turn marker-delta");
    const grandchild = await b.thread("child").fork("grandchild", { at: 1 }).run("grandchild turn marker-epsilon");
    expect(grandchild.text).toMatch(/I saw 3 message/);
    const seen = requestWith(s.requests, "marker-epsilon");
    expect(seen).toContain("marker-alpha");
    expect(seen).not.toContain("marker-beta");
    expect(seen).not.toContain("marker-delta");
  });

  it("a turn the parent does not have: InvalidOptionError (field at) before the CLI starts, and nothing is stored under the fork's key", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const parent = a.thread("parent");
    await runTurns(parent, "turn one marker-alpha", "turn two marker-beta");
    const calls = s.requests.length;
    for (const at of [3, "0190aaaa-0000-7000-8000-000000000000"]) {
      const stream = parent.fork("child", { at }).stream("never sent");
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const refused = await stream.result().catch((e: unknown) => e);
      expect(isError(refused, ErrInvalidOption)).toBe(true);
      expect(findError(refused, InvalidOptionError)).toMatchObject({ subject: "thread.fork()", field: "at" });
      expect(events.some((event) => event.type === "process")).toBe(false);
    }
    expect(s.requests.length).toBe(calls);
    expect(await store.resolve({ key: "child" })).toBeUndefined();
  });

  it("a store without session state: FeatureUnsupportedError (feature fork) before the store or the CLI is touched", async () => {
    const s = await server();
    const store = new MemoryThreadStore({ sessionState: false });
    const a = await host(s, store);
    await runTurns(a.thread("parent"), "turn one marker-alpha", "turn two marker-beta");
    const refused = await a
      .thread("parent")
      .fork("child", { at: 1 })
      .run("never sent")
      .catch((e: unknown) => e);
    expect(isError(refused, ErrFeatureUnsupported)).toBe(true);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "claude", feature: "fork" });
  });
});
