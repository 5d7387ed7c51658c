import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { startOpenAIServer, type CodexTestEnv, type OpenAIServer } from "@adaptor/testkit";
import { ErrFeatureUnsupported, ErrResumeRejected, FeatureUnsupportedError, InvalidOptionError, findError, isError } from "adaptor";
import { defaultCodexCommand } from "@adaptor/codex";
import { codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// Naming and reading one of the codex CLI's own threads (agent.renameSession: `thread/name/set`,
// agent.getSessionInfo: `thread/read`), made here by `codex exec` itself and by adaptor's threads.

const open = closedAfterEach();
const track = (item: { close(): Promise<void> }): void => void open.push(item);

async function server(): Promise<OpenAIServer> {
  const s = await startOpenAIServer({ rules: [] });
  open.push(s);
  return s;
}

/** A thread made by the codex CLI itself (`codex exec --json`, the prompt on stdin); its id. */
async function cliThread(env: CodexTestEnv, prompt: string, resume?: string): Promise<{ id: string; text: string }> {
  const args = resume
    ? ["exec", "--json", "--skip-git-repo-check", "resume", resume, "-"]
    : ["exec", "--json", "--skip-git-repo-check", "-"];
  const running = promisify(execFile)(defaultCodexCommand(), args, {
    cwd: env.workDir,
    env: env.env as NodeJS.ProcessEnv,
    timeout: 60_000,
  });
  running.child.stdin!.end(prompt);
  const { stdout } = await running;
  const events = stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; thread_id?: string; item?: { type?: string; text?: string } });
  const text = events.filter((event) => event.item?.type === "agent_message").map((event) => event.item!.text ?? "");
  return { id: events.find((event) => event.type === "thread.started")!.thread_id!, text: text.join("\n") };
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("codex: naming and reading one of the CLI's own threads (real binary)", { timeout: 240_000 }, () => {
  it("renameSession names the thread as codex does (thread/name/set): listSessions and getSessionInfo show it, codex resumes the thread with its history", async () => {
    const s = await server();
    const a = await codexHost(s, new MemoryThreadStore(), track);
    const { id } = await cliThread(a.env, "draft the release notes");
    const other = await cliThread(a.env, "another conversation");

    const before = await a.agent.getSessionInfo(id);
    expect(before).toMatchObject({
      sessionId: id,
      cwd: a.env.workDir,
      title: "draft the release notes",
      firstPrompt: "draft the release notes",
    });
    expect(before).toEqual((await a.agent.listSessions()).sessions.find((session) => session.sessionId === id));

    await a.agent.renameSession(id, "  Release notes draft ");
    expect(await a.agent.getSessionInfo(id)).toMatchObject({
      sessionId: id,
      title: "Release notes draft",
      firstPrompt: "draft the release notes",
    });
    const listed = new Map((await a.agent.listSessions()).sessions.map((session) => [session.sessionId, session.title]));
    expect(listed.get(id)).toBe("Release notes draft");
    expect(listed.get(other.id)).toBe("another conversation");

    // Codex itself goes on with the named thread, history intact, and the name stays.
    const resumed = await cliThread(a.env, "and the changelog", id);
    expect(resumed.id).toBe(id);
    expect(resumed.text).toMatch(/draft the release notes/);
    expect(await a.agent.getSessionInfo(id)).toMatchObject({ title: "Release notes draft" });
  });

  it("names an adaptor thread's session between its turns; the thread goes on", async () => {
    const s = await server();
    const a = await codexHost(s, new MemoryThreadStore(), track);
    const thread = a.agent.thread("named");
    const first = await thread.run("first turn");
    await a.agent.renameSession(first.sessionId!, "Named thread");
    const second = await thread.run("second turn");
    expect(second.sessionId).toBe(first.sessionId);
    expect(await a.agent.getSessionInfo(first.sessionId!)).toMatchObject({ title: "Named thread", firstPrompt: "first turn" });
  });

  it("an unknown id is ErrResumeRejected, a path for an id is refused before codex starts, and a tag is FeatureUnsupported", async () => {
    const s = await server();
    const a = await codexHost(s, new MemoryThreadStore(), track);
    for (const call of [
      () => a.agent.getSessionInfo(randomUUID()),
      () => a.agent.renameSession(randomUUID(), "x"),
      () => a.agent.getSessionInfo("not-a-thread-id"),
      () => a.agent.renameSession("not-a-thread-id", "x"),
    ])
      expect(isError(await failure(call()), ErrResumeRejected)).toBe(true);
    expect(findError(await failure(a.agent.renameSession("../sessions/x", "x")), InvalidOptionError)).toMatchObject({
      subject: "renameSession arguments",
      field: "sessionId",
    });
    const tag = await failure(a.agent.tagSession(randomUUID(), "x"));
    expect(isError(tag, ErrFeatureUnsupported)).toBe(true);
    expect(findError(tag, FeatureUnsupportedError)).toMatchObject({ feature: "tagSession" });
  });
});
