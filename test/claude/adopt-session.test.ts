import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent, ErrResumeRejected, ErrThreadAlreadyExists, FeatureUnsupportedError, findError, isError, type AgentEvent } from "adaptor";
import { claude, defaultClaudeCommand } from "@adaptor/claude";
import { acp } from "@adaptor/acp";
import { closedAfterEach } from "../support/closed-after-each.js";

// Adopting a conversation the claude CLI already has (made here by the CLI itself, as an app on the
// Claude Agent SDK would have): it becomes an ordinary thread, and a wrong id never starts afresh.

const open = closedAfterEach();

async function server(): Promise<AnthropicServer> {
  const s = await startAnthropicServer({ rules: [] });
  open.push(s);
  return s;
}

async function host(s: AnthropicServer, store: ThreadStore): Promise<{ env: ClaudeTestEnv; agent: Agent }> {
  const env = await claudeTestEnv({ server: s });
  open.push({ close: () => env.cleanup() });
  const agent = new Agent(claude({ env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: store,
    cwd: env.workDir,
    workspace: "git@example.com:acme/app.git",
  });
  open.push(agent);
  return { env, agent };
}

/** A conversation made by the claude CLI itself (`claude -p --output-format json`); its `session_id`. */
async function cliSession(env: ClaudeTestEnv, prompt: string, cwd = env.workDir): Promise<string> {
  const { stdout } = await promisify(execFile)(
    defaultClaudeCommand(),
    ["-p", prompt, "--output-format", "json", "--model", "claude-sonnet-4-5"],
    { cwd, env: env.env as NodeJS.ProcessEnv, timeout: 60_000 },
  );
  return (JSON.parse(stdout) as { session_id: string }).session_id;
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("claude: adopting a CLI session as a thread (real binary)", { timeout: 180_000 }, () => {
  it("the adopted session continues with its history, then behaves as any thread: next turns, fork, another host", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const sessionId = await cliSession(a.env, "made by the CLI");
    const thread = a.agent.thread("imported", { adoptSession: sessionId });
    const first = await thread.run("first adopted turn");
    expect(first.text).toMatch(/I saw 3 message\(s\); first user text: "made by the CLI"/);
    expect(first.sessionId).toBe(sessionId);
    expect((await thread.checkpoint())?.checkpoint.resumeId).toBe(sessionId);
    // The same Thread continues; so does a plain handle, and adopting the same id again.
    expect((await thread.run("second")).text).toMatch(/I saw 5 message/);
    expect((await a.agent.thread("imported").run("third")).text).toMatch(/I saw 7 message/);
    expect((await a.agent.thread("imported", { adoptSession: sessionId }).run("fourth")).text).toMatch(/I saw 9 message/);
    // Fork from the adopted thread.
    const fork = await a.agent.thread("imported").fork("branch").run("in the branch");
    expect(fork.text).toMatch(/I saw 11 message/);
    expect(fork.sessionId).not.toBe(sessionId);
    // Another host (its own CLAUDE_CONFIG_DIR and cwd) restores it from the store.
    const b = await host(s, store);
    const events: AgentEvent[] = [];
    const stream = b.agent.thread("imported").stream("on host b");
    for await (const event of stream) events.push(event);
    expect((await stream.result()).text).toMatch(/I saw 11 message\(s\); first user text: "made by the CLI"/);
    expect(events.some((e) => e.type === "notice" && e.message === "session restored")).toBe(true);
  });

  it("an id the CLI home does not hold (unknown, another config dir, not a session id): ErrResumeRejected, no model call, nothing stored", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const other = await host(s, store);
    const elsewhere = await cliSession(other.env, "made on another config dir");
    const before = s.requests.length;
    for (const id of [randomUUID(), elsewhere, "not-a-session-id"]) {
      const err = await failure(a.agent.thread("imported", { adoptSession: id }).run("hello"));
      expect(isError(err, ErrResumeRejected)).toBe(true);
      expect((err as Error).message).toContain(`cannot adopt session ${id}`);
    }
    expect(s.requests.length).toBe(before);
    expect(await store.resolve({ key: "imported" })).toBeUndefined();
  });

  it("a session made in another working directory of the same config dir: the CLI finds it and continues it, with its history", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const otherDir = join(a.env.workDir, "..", "other-project");
    await mkdir(otherDir, { recursive: true });
    const sessionId = await cliSession(a.env, "made in another project", otherDir);
    const adopted = await a.agent.thread("imported", { adoptSession: sessionId }).run("hello");
    expect(adopted.text).toMatch(/I saw 3 message\(s\); first user text: "made in another project"/);
    expect(adopted.sessionId).toBe(sessionId);
    expect((await a.agent.thread("imported").run("again")).text).toMatch(/I saw 5 message/);
  });

  it("a key that holds another conversation: ErrThreadAlreadyExists, the key's conversation untouched", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const own = await a.agent.thread("taken").run("the key's own");
    const sessionId = await cliSession(a.env, "made by the CLI");
    const err = await failure(a.agent.thread("taken", { adoptSession: sessionId }).run("hello"));
    expect(isError(err, ErrThreadAlreadyExists)).toBe(true);
    expect((await store.resolve({ key: "taken" }))?.checkpoint.resumeId).toBe(own.sessionId);
  });

  it("a driver that cannot find its CLI's sessions by id refuses with FeatureUnsupportedError", async () => {
    await using agent = new Agent(acp({ command: "adaptor-no-such-acp-agent" }), { threadStore: new MemoryThreadStore() });
    const err = await failure(agent.thread("imported", { adoptSession: "some-session" }).run("hello"));
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature: "adoptSession" });
  });
});
