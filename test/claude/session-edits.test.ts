import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { link, mkdir, readdir, readFile, stat, symlink, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import {
  claudeTestEnv,
  startAnthropicServer,
  whenUserSays,
  type AnthropicServer,
  type ClaudeTestEnv,
  type ScriptRule,
} from "@adaptor/testkit";
import { Agent, DriverError, ErrResumeRejected, InvalidOptionError, findError, isError } from "adaptor";
import { claude, defaultClaudeCommand } from "@adaptor/claude";
import { closedAfterEach } from "../support/closed-after-each.js";

// Titling and tagging the Claude Code CLI's own sessions (agent.renameSession, agent.tagSession)
// and reading one session's summary (agent.getSessionInfo), on transcripts the real CLI made;
// what is written is checked against the CLI's own `/rename` and the Claude Agent SDK's reading of
// the same file.

const open = closedAfterEach();
const here = dirname(fileURLToPath(import.meta.url));

async function home(rules: ScriptRule[] = []): Promise<{ s: AnthropicServer; env: ClaudeTestEnv; agent: Agent }> {
  const s = await startAnthropicServer({ rules });
  open.push(s);
  const env = await claudeTestEnv({ server: s });
  open.push({ close: () => env.cleanup() });
  const agent = new Agent(claude({ env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: new MemoryThreadStore(),
    cwd: env.workDir,
  });
  open.push(agent);
  return { s, env, agent };
}

/** Runs the claude CLI itself (`claude -p --output-format json`) and returns its result line. */
async function cli(env: ClaudeTestEnv, args: readonly string[]): Promise<{ session_id: string; result: string }> {
  const { stdout } = await promisify(execFile)(
    defaultClaudeCommand(),
    ["-p", ...args, "--output-format", "json", "--model", "claude-sonnet-4-5"],
    { cwd: env.workDir, env: env.env as NodeJS.ProcessEnv, timeout: 60_000 },
  );
  return JSON.parse(stdout) as { session_id: string; result: string };
}

/** What the Claude Agent SDK's own `getSessionInfo` (or another of its session functions) makes of the session, in this home. */
async function peer(env: ClaudeTestEnv, call: string): Promise<unknown> {
  const script = `import * as sdk from "@anthropic-ai/claude-agent-sdk"; const value = await ${call}; process.stdout.write(JSON.stringify(value ?? null));`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
    cwd: here,
    env: { PATH: process.env.PATH ?? "", HOME: env.env.HOME!, CLAUDE_CONFIG_DIR: env.env.CLAUDE_CONFIG_DIR! },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as unknown;
}

async function transcriptOf(env: ClaudeTestEnv, sessionId: string): Promise<string> {
  const projects = join(env.env.CLAUDE_CONFIG_DIR!, "projects");
  for (const folder of await readdir(projects)) {
    const path = join(projects, folder, `${sessionId}.jsonl`);
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  throw new Error(`no transcript of ${sessionId}`);
}

async function lastLine(path: string): Promise<string> {
  return (await readFile(path, "utf8")).trimEnd().split("\n").at(-1)!;
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("claude: titling, tagging and reading one of the CLI's own sessions (real binary)", { timeout: 240_000 }, () => {
  it("renameSession appends the entry the CLI's own /rename writes; listSessions, getSessionInfo and the Claude Agent SDK read the title, and the CLI resumes the session", async () => {
    const a = await home();
    const id = (await cli(a.env, ["draft the release notes"])).session_id;
    // What the CLI itself writes for a title, in another session of the same home.
    const byCli = (await cli(a.env, ["another conversation"])).session_id;
    await cli(a.env, ["/rename Named by the CLI", "--resume", byCli]);
    const cliEntry = JSON.parse(
      (await readFile(await transcriptOf(a.env, byCli), "utf8")).split("\n").find((line) => line.includes('"custom-title"'))!,
    ) as Record<string, unknown>;

    const path = await transcriptOf(a.env, id);
    const before = await readFile(path, "utf8");
    await a.agent.renameSession(id, "  Release notes draft  ");
    const after = await readFile(path, "utf8");
    // Appended, nothing before it touched; the same keys as the CLI's own entry.
    expect(after.startsWith(before)).toBe(true);
    const entry = JSON.parse(after.slice(before.length)) as Record<string, unknown>;
    expect(entry).toEqual({ type: "custom-title", customTitle: "Release notes draft", sessionId: id });
    expect(Object.keys(entry)).toEqual(Object.keys(cliEntry));
    // And the title file the CLI's /rename keeps beside the transcript, which outlives the entry's
    // place in the transcript's last 64 KiB.
    const sidecar = (transcript: string, sessionId: string) => join(dirname(transcript), sessionId, "custom-title.json");
    const cliSidecar = JSON.parse(await readFile(sidecar(await transcriptOf(a.env, byCli), byCli), "utf8")) as Record<string, unknown>;
    const ownSidecar = JSON.parse(await readFile(sidecar(path, id), "utf8")) as Record<string, unknown>;
    expect(cliSidecar).toMatchObject({ customTitle: "Named by the CLI", by: "user" });
    expect(ownSidecar).toMatchObject({ customTitle: "Release notes draft", by: "user" });
    expect(Object.keys(ownSidecar)).toEqual(Object.keys(cliSidecar));
    expect(Date.parse(ownSidecar.at as string)).not.toBeNaN();

    expect(await a.agent.getSessionInfo(id)).toMatchObject({
      sessionId: id,
      title: "Release notes draft",
      firstPrompt: "draft the release notes",
      cwd: a.env.workDir,
    });
    const listed = (await a.agent.listSessions()).sessions.find((session) => session.sessionId === id);
    expect(listed).toEqual(await a.agent.getSessionInfo(id));
    expect(await peer(a.env, `sdk.getSessionInfo(${JSON.stringify(id)})`)).toMatchObject({
      sessionId: id,
      customTitle: "Release notes draft",
      summary: "Release notes draft",
      firstPrompt: "draft the release notes",
    });

    // The CLI goes on with the session, history intact, and the title stays.
    const resumed = await cli(a.env, ["and the changelog", "--resume", id]);
    expect(resumed.session_id).toBe(id);
    expect(resumed.result).toMatch(/first user text: "draft the release notes"/);
    expect(await a.agent.getSessionInfo(id)).toMatchObject({ title: "Release notes draft" });
    // A later title wins.
    await a.agent.renameSession(id, "Changelog");
    expect(await a.agent.getSessionInfo(id)).toMatchObject({ title: "Changelog" });
    expect(await peer(a.env, `sdk.getSessionInfo(${JSON.stringify(id)})`)).toMatchObject({ customTitle: "Changelog" });
  });

  it("tagSession writes the Claude Agent SDK's tag entry; null clears it; the SDK's own rename and tag are read back", async () => {
    const a = await home();
    const id = (await cli(a.env, ["tag me"])).session_id;
    const path = await transcriptOf(a.env, id);

    await a.agent.tagSession(id, " review ");
    expect(JSON.parse(await lastLine(path))).toEqual({ type: "tag", tag: "review", sessionId: id });
    expect(await a.agent.getSessionInfo(id)).toMatchObject({ tag: "review" });
    expect((await a.agent.listSessions()).sessions).toMatchObject([{ sessionId: id, tag: "review" }]);
    expect(await peer(a.env, `sdk.getSessionInfo(${JSON.stringify(id)})`)).toMatchObject({ tag: "review" });

    await a.agent.tagSession(id, null);
    expect(JSON.parse(await lastLine(path))).toEqual({ type: "tag", tag: "", sessionId: id });
    expect(await a.agent.getSessionInfo(id)).not.toHaveProperty("tag");
    expect(await peer(a.env, `sdk.getSessionInfo(${JSON.stringify(id)})`)).not.toHaveProperty("tag");

    // What the Claude Agent SDK writes, adaptor reads.
    await peer(a.env, `sdk.renameSession(${JSON.stringify(id)}, "Peer title")`);
    await peer(a.env, `sdk.tagSession(${JSON.stringify(id)}, "peer-tag")`);
    expect(await a.agent.getSessionInfo(id)).toMatchObject({ title: "Peer title", tag: "peer-tag", firstPrompt: "tag me" });
  });

  it("titles a session while a thread's turn runs on it: the turn completes, its next turn sees the history, the title stays once the transcript has grown past the entry", async () => {
    const a = await home([{ when: whenUserSays("slow turn"), reply: { text: "slow answer", delayMs: 5_000 } }]);
    const id = (await cli(a.env, ["start here"])).session_id;
    const thread = a.agent.thread("adopted", { adoptSession: id });
    const running = thread.run("slow turn");
    // The CLI has written the turn's prompt and is waiting for the model.
    await vi.waitFor(() => expect(a.s.requests.some((request) => JSON.stringify(request.body).includes("slow turn"))).toBe(true), {
      timeout: 120_000,
      interval: 100,
    });
    await a.agent.renameSession(id, "Renamed mid-turn");
    await a.agent.tagSession(id, "busy");
    expect((await running).text).toBe("slow answer");
    const next = await thread.run("after the rename");
    expect(next.sessionId).toBe(id);
    expect(next.text).toMatch(/first user text: "start here"/);
    // The title outlives the entry's place in the transcript's last 64 KiB (the turns' request
    // records pushed it out) through the title file; the tag, which has no such file, is read from
    // those last 64 KiB only, by adaptor as by the Claude Agent SDK.
    const info = await a.agent.getSessionInfo(id);
    expect(info).toMatchObject({ title: "Renamed mid-turn" });
    const peerInfo = (await peer(a.env, `sdk.getSessionInfo(${JSON.stringify(id)})`)) as Record<string, unknown>;
    expect(peerInfo).toMatchObject({ customTitle: "Renamed mid-turn" });
    expect(info.tag).toBe(peerInfo.tag ?? undefined);
    // Every line of the transcript is still one JSON entry.
    for (const line of (await readFile(await transcriptOf(a.env, id), "utf8")).trimEnd().split("\n"))
      expect(() => JSON.parse(line)).not.toThrow();
  });

  it("an unknown id is ErrResumeRejected and a path for an id is refused before anything is read: nothing is written", async () => {
    const a = await home();
    const id = (await cli(a.env, ["keep me"])).session_id;
    const path = await transcriptOf(a.env, id);
    const before = await readFile(path, "utf8");
    const outside = join(a.env.root, "outside.jsonl");
    await writeFile(outside, `${before.split("\n")[0]}\n`);
    const outsideBefore = await readFile(outside, "utf8");
    const unknown = randomUUID();

    for (const call of [
      () => a.agent.getSessionInfo(unknown),
      () => a.agent.renameSession(unknown, "x"),
      () => a.agent.tagSession(unknown, "x"),
      () => a.agent.renameSession("not-a-uuid", "x"),
    ]) {
      const err = await failure(call());
      expect(isError(err, ErrResumeRejected)).toBe(true);
    }
    const traversal = `../${id}`;
    for (const [bad, method] of [
      [traversal, "renameSession"],
      [outside.slice(0, -".jsonl".length), "tagSession"],
      ["..", "getSessionInfo"],
      [`${id}\\..`, "renameSession"],
    ] as const) {
      const call =
        method === "renameSession"
          ? a.agent.renameSession(bad, "x")
          : method === "tagSession"
            ? a.agent.tagSession(bad, "x")
            : a.agent.getSessionInfo(bad);
      expect(findError(await failure(call), InvalidOptionError)).toMatchObject({ subject: `${method} arguments`, field: "sessionId" });
    }
    for (const [title, reason] of [
      ["   ", /empty/],
      ["two\nlines", /control characters or line breaks/],
      ["x".repeat(501), /at most 500/],
    ] as const) {
      const err = findError(await failure(a.agent.renameSession(id, title)), InvalidOptionError);
      expect(err).toMatchObject({ subject: "renameSession arguments", field: "title" });
      expect(err!.message).toMatch(reason);
    }
    expect(findError(await failure(a.agent.tagSession(id, "" as string)), InvalidOptionError)).toMatchObject({ field: "tag" });
    expect(await readFile(path, "utf8")).toBe(before);
    expect(await readFile(outside, "utf8")).toBe(outsideBefore);
  });

  it("a symbolic link in place of the transcript is no session; a hard link, or a link in place of the title file's folder, is refused (DriverError INVALID): nothing is written", async () => {
    const a = await home();
    const id = (await cli(a.env, ["linked"])).session_id;
    const path = await transcriptOf(a.env, id);
    const victim = join(a.env.root, "victim.jsonl");
    await writeFile(victim, await readFile(path, "utf8"));
    const victimBefore = await readFile(victim, "utf8");
    await unlink(path);
    await symlink(victim, path);
    // The link is not a transcript: the session is not found to read.
    expect(isError(await failure(a.agent.getSessionInfo(id)), ErrResumeRejected)).toBe(true);
    expect(isError(await failure(a.agent.renameSession(id, "through the link")), ErrResumeRejected)).toBe(true);
    expect(await readFile(victim, "utf8")).toBe(victimBefore);
    // A hard link: writing it would write its other name too; refused, neither name written.
    await unlink(path);
    await writeFile(path, victimBefore);
    const second = join(a.env.root, "second-name.jsonl");
    await link(path, second);
    const err = findError(await failure(a.agent.renameSession(id, "through the hard link")), DriverError);
    expect(err).toMatchObject({ code: "INVALID" });
    expect(await readFile(second, "utf8")).toBe(victimBefore);
    // A link in place of the session's folder, where the title file goes: refused before the entry
    // is appended, nothing written on either side of the link.
    await unlink(second);
    const elsewhere = join(a.env.root, "elsewhere");
    await mkdir(elsewhere);
    await symlink(elsewhere, join(dirname(path), id));
    const linkedFolder = findError(await failure(a.agent.renameSession(id, "into the linked folder")), DriverError);
    expect(linkedFolder).toMatchObject({ code: "INVALID" });
    expect(await readFile(path, "utf8")).toBe(victimBefore);
    expect(await readdir(elsewhere)).toEqual([]);
  });
});
