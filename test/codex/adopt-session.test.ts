import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { startOpenAIServer, whenPromptSays, type CodexTestEnv, type OpenAIServer } from "@adaptor/testkit";
import { ErrResumeRejected, ErrThreadAlreadyExists, FeatureUnsupportedError, RunError, findError, isError, type AgentEvent } from "adaptor";
import { defaultCodexCommand } from "@adaptor/codex";
import { codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// Adopting a thread the codex CLI already has (made here by `codex exec` itself, as an app on the
// Codex SDK would have): it becomes an ordinary adaptor thread, and a wrong id never starts afresh.

const open = closedAfterEach();

async function server(): Promise<OpenAIServer> {
  const s = await startOpenAIServer({ rules: [] });
  open.push(s);
  return s;
}

/** A thread made by the codex CLI itself (`codex exec --json`); the id of its `thread.started` event. */
async function cliThread(env: CodexTestEnv, prompt: string): Promise<string> {
  const running = promisify(execFile)(defaultCodexCommand(), ["exec", "--json", "--skip-git-repo-check", "-"], {
    cwd: env.workDir,
    env: env.env as NodeJS.ProcessEnv,
    timeout: 60_000,
  });
  // The prompt on stdin, as the Codex SDK gives it.
  running.child.stdin!.end(prompt);
  const { stdout } = await running;
  const started = stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; thread_id?: string })
    .find((event) => event.type === "thread.started");
  return started!.thread_id!;
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("codex: adopting a CLI thread as an adaptor thread (real binary)", { timeout: 180_000 }, () => {
  for (const transport of ["app-server", "exec"] as const) {
    it(`${transport}: the adopted thread continues with its history, then behaves as any thread: next turns, fork, another host`, async () => {
      const s = await server();
      const store = new MemoryThreadStore();
      const track = (item: { close(): Promise<void> }): void => void open.push(item);
      const a = await codexHost(s, store, track, transport);
      const threadId = await cliThread(a.env, "made by the CLI");
      const thread = a.agent.thread("imported", { adoptSession: threadId });
      const first = await thread.run("first adopted turn");
      expect(first.text).toContain('2 user message(s); first user text: "made by the CLI"');
      expect(first.sessionId).toBe(threadId);
      expect((await thread.checkpoint())?.checkpoint.resumeId).toBe(threadId);
      expect((await thread.run("second")).text).toContain("3 user message(s)");
      expect((await a.agent.thread("imported", { adoptSession: threadId }).run("third")).text).toContain("4 user message(s)");
      const forking = a.agent.thread("imported").fork("branch").run("in the branch");
      if (transport === "app-server") {
        const fork = await forking;
        expect(fork.text).toContain("5 user message(s)");
        expect(fork.sessionId).not.toBe(threadId);
      } else {
        // exec has no fork of its own (it would continue the parent's codex thread): refused.
        expect(findError(await forking.catch((e: unknown) => e), FeatureUnsupportedError)).toMatchObject({ feature: "fork" });
      }
      // Another host (its own CODEX_HOME and cwd) restores it from the store.
      const b = await codexHost(s, store, track, transport);
      const events: AgentEvent[] = [];
      const stream = b.agent.thread("imported").stream("on host b");
      for await (const event of stream) events.push(event);
      expect((await stream.result()).text).toContain('5 user message(s); first user text: "made by the CLI"');
      expect(events.some((e) => e.type === "notice" && e.message === "session restored")).toBe(true);
    });
  }

  it("exec: the first adopted turn reports its own usage, not the thread's running total; failed turns are cut back, the first one too", async () => {
    const s = await startOpenAIServer({
      rules: [1, 2, 3].map((n) => ({
        name: `usage-${n}`,
        when: whenPromptSays(`usage-${n}`),
        reply: { text: `reply ${n}`, usage: { input_tokens: 100 * n + n, output_tokens: 10 * n + 1 } },
      })),
    });
    open.push(s);
    const track = (item: { close(): Promise<void> }): void => void open.push(item);
    const a = await codexHost(s, new MemoryThreadStore(), track, "exec");
    const threadId = await cliThread(a.env, "made by the CLI");
    const adopt = () => a.agent.thread("imported", { adoptSession: threadId });
    const userTexts = (): readonly string[] => s.responses().at(-1)?.view.userTexts ?? [];

    // A failed first adopted turn leaves codex's thread as it was adopted.
    expect(await failure(adopt().run("lost HTTP_ERROR 400"))).toBeInstanceOf(RunError);
    const first = await adopt().run("usage-1");
    expect(userTexts()).toEqual(["made by the CLI", "usage-1"]);
    expect(first.usage).toMatchObject({ inputTokens: 101, outputTokens: 11 });

    // A failed later turn is dropped before the next one.
    expect(await failure(adopt().run("second HTTP_ERROR 400"))).toBeInstanceOf(RunError);
    const events: AgentEvent[] = [];
    const stream = adopt().stream("usage-3");
    for await (const event of stream) events.push(event);
    const third = await stream.result();
    // Its lines past the stored rollout are cut off before codex resumes.
    expect(events.some((e) => e.type === "notice" && e.message === "session restored" && e.data?.trimmed === true)).toBe(true);
    expect(userTexts()).toEqual(["made by the CLI", "usage-1", "usage-3"]);
    expect(third.usage).toMatchObject({ inputTokens: 303, outputTokens: 31 });
  });

  it("an id this CODEX_HOME does not hold (unknown, another home, not a thread id): ErrResumeRejected, no model call, nothing stored", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const track = (item: { close(): Promise<void> }): void => void open.push(item);
    const a = await codexHost(s, store, track);
    const other = await codexHost(s, store, track);
    const elsewhere = await cliThread(other.env, "made in another home");
    const before = s.responses().length;
    for (const id of [randomUUID(), elsewhere, "not-a-thread-id"]) {
      const err = await failure(a.agent.thread("imported", { adoptSession: id }).run("hello"));
      expect(isError(err, ErrResumeRejected)).toBe(true);
      expect((err as Error).message).toContain(`cannot adopt session ${id}`);
    }
    expect(s.responses().length).toBe(before);
    expect(await store.resolve({ key: "imported" })).toBeUndefined();
  });

  it("a key that holds another conversation: ErrThreadAlreadyExists, the key's conversation untouched", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await codexHost(s, store, (item) => void open.push(item));
    const own = await a.agent.thread("taken").run("the key's own");
    const threadId = await cliThread(a.env, "made by the CLI");
    const err = await failure(a.agent.thread("taken", { adoptSession: threadId }).run("hello"));
    expect(isError(err, ErrThreadAlreadyExists)).toBe(true);
    expect((await store.resolve({ key: "taken" }))?.checkpoint.resumeId).toBe(own.sessionId);
  });
});
