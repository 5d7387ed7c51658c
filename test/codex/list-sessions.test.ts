import { execFile } from "node:child_process";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { startOpenAIServer, type CodexTestEnv, type OpenAIServer } from "@adaptor/testkit";
import { Agent, ErrResumeRejected, InvalidOptionError, findError, isError, type SessionSummary } from "adaptor";
import { CodexRpcError, codex, defaultCodexCommand } from "@adaptor/codex";
import { codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// Listing the codex CLI's own threads (made here by `codex exec` itself, as a user or an app on
// the Codex SDK would have, and by adaptor's runs) through `thread/list`, so an app can offer
// "pick a past conversation" and adopt one.

const open = closedAfterEach();
const track = (item: { close(): Promise<void> }): void => void open.push(item);

async function server(): Promise<OpenAIServer> {
  const s = await startOpenAIServer({ rules: [] });
  open.push(s);
  return s;
}

/** A thread made by the codex CLI itself (`codex exec --json`, the prompt on stdin); its id. */
async function cliThread(env: CodexTestEnv, prompt: string, cwd = env.workDir): Promise<string> {
  const running = promisify(execFile)(defaultCodexCommand(), ["exec", "--json", "--skip-git-repo-check", "-"], {
    cwd,
    env: env.env as NodeJS.ProcessEnv,
    timeout: 60_000,
  });
  running.child.stdin!.end(prompt);
  const { stdout } = await running;
  const started = stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; thread_id?: string })
    .find((event) => event.type === "thread.started");
  return started!.thread_id!;
}

function ids(sessions: readonly SessionSummary[]): string[] {
  return sessions.map((session) => session.sessionId);
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("codex: listing the CLI's own threads (real binary)", { timeout: 240_000 }, () => {
  it("lists threads codex exec and adaptor made, newest first, with ids, cwd, prompts and times; filters and pages; a listed id adopts and continues", async () => {
    const s = await server();
    const a = await codexHost(s, new MemoryThreadStore(), track);
    const elsewhere = join(a.env.root, "other-project");
    await mkdir(elsewhere);
    const first = await cliThread(a.env, "the first conversation");
    const second = await cliThread(a.env, "made in another project", elsewhere);
    const own = (await a.agent.run("made by adaptor")).sessionId!;

    const page = await a.agent.listSessions();
    expect(page.skipped).toEqual([]);
    expect(page.nextCursor).toBeUndefined();
    // Codex's times are whole seconds: threads of one second keep codex's order among themselves.
    expect(new Set(ids(page.sessions))).toEqual(new Set([own, second, first]));
    for (let i = 1; i < page.sessions.length; i++)
      expect(page.sessions[i - 1]!.updatedAt!.getTime()).toBeGreaterThanOrEqual(page.sessions[i]!.updatedAt!.getTime());
    const byId = new Map(page.sessions.map((session) => [session.sessionId, session]));
    expect(byId.get(first)).toMatchObject({ cwd: a.env.workDir, firstPrompt: "the first conversation", title: "the first conversation" });
    expect(byId.get(second)).toMatchObject({ cwd: elsewhere, firstPrompt: "made in another project" });
    expect(byId.get(own)).toMatchObject({ cwd: a.env.workDir, firstPrompt: "made by adaptor" });
    for (const session of page.sessions) {
      expect(session.createdAt).toBeInstanceOf(Date);
      expect(session.updatedAt!.getTime()).toBeGreaterThanOrEqual(session.createdAt!.getTime());
      expect(session.model).toEqual(expect.any(String));
    }

    // Filters: exactly one working directory.
    expect(ids((await a.agent.listSessions({ cwd: elsewhere })).sessions)).toEqual([second]);
    expect(new Set(ids((await a.agent.listSessions({ cwd: a.env.workDir })).sessions))).toEqual(new Set([own, first]));
    expect((await a.agent.listSessions({ cwd: a.env.root })).sessions).toEqual([]);
    // Pages of one, through codex's cursor, without repeats.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const next = await a.agent.listSessions({ limit: 1, ...(cursor ? { cursor } : {}) });
      expect(next.sessions.length).toBeLessThanOrEqual(1);
      seen.push(...ids(next.sessions));
      cursor = next.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids(page.sessions));

    // The listed id continues as a thread, with its history.
    const adopted = await a.agent.thread("picked", { adoptSession: second }).run("picked from the list");
    expect(adopted.sessionId).toBe(second);
    expect(adopted.text).toContain('2 user message(s); first user text: "made in another project"');
  });

  it("a session of another CODEX_HOME is not listed; the exec transport lists too; a corrupt rollout does not fail the listing", async () => {
    const s = await server();
    const a = await codexHost(s, new MemoryThreadStore(), track, "exec");
    const b = await codexHost(s, new MemoryThreadStore(), track);
    const mine = await cliThread(a.env, "in home a");
    const theirs = await cliThread(b.env, "in home b");
    expect(ids((await a.agent.listSessions()).sessions)).toEqual([mine]);
    expect(ids((await b.agent.listSessions()).sessions)).toEqual([theirs]);
    expect(isError(await failure(a.agent.thread("theirs", { adoptSession: theirs }).run("hello")), ErrResumeRejected)).toBe(true);
    // The Agent's env names the home too.
    await using viaEnv = new Agent(codex({ inheritEnv: false, killGraceMs: 1000 }), { env: b.env.env as Record<string, string> });
    expect(ids((await viaEnv.listSessions()).sessions)).toEqual([theirs]);

    // A rollout file codex cannot read, beside a good one.
    const days = join(a.env.env.CODEX_HOME!, "sessions");
    const [year] = await readdir(days);
    const [month] = await readdir(join(days, year!));
    const [day] = await readdir(join(days, year!, month!));
    await writeFile(
      join(days, year!, month!, day!, "rollout-2026-12-07T00-00-00-01a24f1e-0000-7000-8000-000000000000.jsonl"),
      'not json\n{"type":',
    );
    expect(ids((await a.agent.listSessions()).sessions)).toEqual([mine]);

    const bad = await failure(a.agent.listSessions({ cursor: "not-a-cursor" }));
    expect(findError(bad, InvalidOptionError)).toMatchObject({ subject: "listSessions query", field: "cursor" });
    expect(findError(bad, CodexRpcError)).toMatchObject({ method: "thread/list", code: -32600 });
  });
});
