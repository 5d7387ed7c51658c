import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent, ErrResumeRejected, InvalidOptionError, findError, isError, type SessionSummary } from "adaptor";
import { claude, defaultClaudeCommand } from "@adaptor/claude";
import { closedAfterEach } from "../support/closed-after-each.js";

// Listing the Claude Code CLI's own sessions (made here by the CLI itself, as a user or an app on
// the Claude Agent SDK would have, and by adaptor's runs), so an app can offer "pick a past
// conversation" and adopt one.

const open = closedAfterEach();

async function server(): Promise<AnthropicServer> {
  const s = await startAnthropicServer({ rules: [] });
  open.push(s);
  return s;
}

async function home(s: AnthropicServer): Promise<{ env: ClaudeTestEnv; agent: Agent }> {
  const env = await claudeTestEnv({ server: s });
  open.push({ close: () => env.cleanup() });
  const agent = new Agent(claude({ env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: new MemoryThreadStore(),
    cwd: env.workDir,
  });
  open.push(agent);
  return { env, agent };
}

/** Runs the claude CLI itself (`claude -p --output-format json`) and returns its `session_id`. */
async function cli(env: ClaudeTestEnv, args: readonly string[], cwd = env.workDir): Promise<string> {
  const { stdout } = await promisify(execFile)(
    defaultClaudeCommand(),
    ["-p", ...args, "--output-format", "json", "--model", "claude-sonnet-4-5"],
    {
      cwd,
      env: env.env as NodeJS.ProcessEnv,
      timeout: 60_000,
    },
  );
  return (JSON.parse(stdout) as { session_id: string }).session_id;
}

async function otherDir(env: ClaudeTestEnv, name: string): Promise<string> {
  const dir = join(env.root, name);
  await mkdir(dir, { recursive: true });
  return dir;
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

describe("claude: listing the CLI's own sessions (real binary)", { timeout: 240_000 }, () => {
  it("lists sessions the CLI and adaptor made, newest first, with their ids, cwd, prompts and times; a listed id adopts and continues", async () => {
    const s = await server();
    const a = await home(s);
    const elsewhere = await otherDir(a.env, "other-project");
    const first = await cli(a.env, ["the first conversation"]);
    await cli(a.env, ["and its second turn", "--resume", first]);
    const second = await cli(a.env, ["made in another project"], elsewhere);
    const own = (await a.agent.run("made by adaptor")).sessionId!;

    const page = await a.agent.listSessions();
    expect(page.skipped).toEqual([]);
    expect(page.nextCursor).toBeUndefined();
    expect(ids(page.sessions)).toEqual([own, second, first]);
    const [byAdaptor, other, resumed] = page.sessions;
    expect(byAdaptor).toMatchObject({ cwd: a.env.workDir, firstPrompt: "made by adaptor", title: "made by adaptor" });
    expect(other).toMatchObject({ cwd: elsewhere, firstPrompt: "made in another project" });
    // The title is the last prompt the CLI recorded; the first prompt stays.
    expect(resumed).toMatchObject({ cwd: a.env.workDir, firstPrompt: "the first conversation", title: "and its second turn" });
    for (const session of page.sessions) {
      expect(session.createdAt).toBeInstanceOf(Date);
      expect(session.updatedAt!.getTime()).toBeGreaterThanOrEqual(session.createdAt!.getTime());
      expect(session.bytes).toBeGreaterThan(0);
    }
    expect(page.sessions[0]!.updatedAt!.getTime()).toBeGreaterThanOrEqual(page.sessions[1]!.updatedAt!.getTime());

    // The listed id continues as a thread, with its history.
    const adopted = await a.agent.thread("picked", { adoptSession: other!.sessionId }).run("picked from the list");
    expect(adopted.sessionId).toBe(second);
    expect(adopted.text).toMatch(/I saw 3 message\(s\); first user text: "made in another project"/);
    // Continuing it wrote to it last: it is first now.
    expect(ids((await a.agent.listSessions({ limit: 1 })).sessions)).toEqual([second]);
  });

  it("a title the user gave (/rename) is the listed title; the first prompt stays", async () => {
    const s = await server();
    const a = await home(s);
    const id = await cli(a.env, ["draft the release notes"]);
    await cli(a.env, ["/rename Release notes draft", "--resume", id]);
    expect((await a.agent.listSessions()).sessions).toMatchObject([
      { sessionId: id, title: "Release notes draft", firstPrompt: "draft the release notes" },
    ]);
  });

  it("filters by working directory (exactly), pages with limit and cursor without repeats, and refuses a bad query before reading", async () => {
    const s = await server();
    const a = await home(s);
    const elsewhere = await otherDir(a.env, "other-project");
    const here = [await cli(a.env, ["one"]), await cli(a.env, ["two"]), await cli(a.env, ["three"])];
    const there = await cli(a.env, ["over there"], elsewhere);

    expect(ids((await a.agent.listSessions({ cwd: elsewhere })).sessions)).toEqual([there]);
    expect(ids((await a.agent.listSessions({ cwd: a.env.workDir })).sessions)).toEqual([...here].reverse());
    expect((await a.agent.listSessions({ cwd: join(a.env.root, "nowhere") })).sessions).toEqual([]);
    // A parent folder is not the session's folder.
    expect((await a.agent.listSessions({ cwd: a.env.root })).sessions).toEqual([]);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await a.agent.listSessions({ limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.sessions.length).toBeLessThanOrEqual(2);
      seen.push(...ids(page.sessions));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toEqual([there, ...[...here].reverse()]);

    for (const [query, field] of [
      [{ cwd: "relative/dir" }, "cwd"],
      [{ limit: 0 }, "limit"],
      [{ limit: 1001 }, "limit"],
      [{ cursor: "not-a-cursor" }, "cursor"],
      [{ dir: a.env.workDir }, "dir"],
    ] as const) {
      const err = await failure(a.agent.listSessions(query as never));
      expect(findError(err, InvalidOptionError)).toMatchObject({ subject: "listSessions query", field });
    }
  });

  it("a corrupt, empty or half-written transcript is skipped with its reason, not a crash; links and stray files are not listed", async () => {
    const s = await server();
    const a = await home(s);
    const good = await cli(a.env, ["a good one"]);
    const folder = join(a.env.configDir, "projects", (await readdir(join(a.env.configDir, "projects")))[0]!);
    const corrupt = randomUUID();
    const empty = randomUUID();
    const torn = randomUUID();
    await writeFile(join(folder, `${corrupt}.jsonl`), "this is not json\n\u0000\u0001binary\n");
    await writeFile(join(folder, `${empty}.jsonl`), "");
    // The CLI died while writing its first entry: no complete line.
    await writeFile(
      join(folder, `${torn}.jsonl`),
      `{"type":"queue-operation","operation":"enqueue","timestamp":"2026-12-07T06:08:36.943Z","sessionId":"${torn}","con`,
    );
    await symlink(join(folder, `${good}.jsonl`), join(folder, `${randomUUID()}.jsonl`));
    await writeFile(join(folder, "notes.jsonl"), "{}\n");

    const page = await a.agent.listSessions();
    expect(ids(page.sessions)).toEqual([good]);
    expect(page.skipped.map((skip) => skip.sessionId).sort()).toEqual([corrupt, empty, torn].sort());
    expect(page.skipped.find((skip) => skip.sessionId === empty)?.reason).toBe("the transcript is empty");
    expect(page.skipped.find((skip) => skip.sessionId === torn)?.reason).toMatch(/no complete entry of a Claude Code session/);
  });

  it("a session of another CLI home is not listed, and adopting it is refused", async () => {
    const s = await server();
    const a = await home(s);
    const b = await home(s);
    const mine = await cli(a.env, ["in home a"]);
    const theirs = await cli(b.env, ["in home b"]);
    expect(ids((await a.agent.listSessions()).sessions)).toEqual([mine]);
    expect(ids((await b.agent.listSessions()).sessions)).toEqual([theirs]);
    expect(isError(await failure(a.agent.thread("theirs", { adoptSession: theirs }).run("hello")), ErrResumeRejected)).toBe(true);
    // The Agent's env names the home too: an Agent on b's home through its own env lists b's.
    const viaEnv = new Agent(claude({ inheritEnv: false, model: "claude-sonnet-4-5" }), { env: b.env.env });
    open.push(viaEnv);
    expect(ids((await viaEnv.listSessions()).sessions)).toEqual([theirs]);
    // An empty home lists nothing.
    const empty = await claudeTestEnv({ server: s });
    open.push({ close: () => empty.cleanup() });
    await using none = new Agent(claude({ env: empty.env, inheritEnv: false }));
    expect(await none.listSessions()).toEqual({ sessions: [], skipped: [] });
  });

  it("an aborted listing rejects with the signal's reason; after close() a listing is refused", async () => {
    const s = await server();
    const a = await home(s);
    const reason = new Error("user went away");
    const controller = new AbortController();
    controller.abort(reason);
    expect(await failure(a.agent.listSessions({}, controller.signal))).toBe(reason);
    await a.agent.close();
    expect(await failure(a.agent.listSessions())).toMatchObject({ message: "agent is closed" });
  });
});
