import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { link, readdir, readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent, DriverError, ErrResumeRejected, InvalidOptionError, findError, isError } from "adaptor";
import { claude } from "@adaptor/claude";
import { closedAfterEach } from "../support/closed-after-each.js";

// agent.forkSession() on transcripts the real claude CLI made: the fork holds the conversation
// through the message it is cut at, on new uuids; the CLI resumes it with that history only; the
// Claude Agent SDK reads it as a session of its own; a refused fork writes nothing.

const open = closedAfterEach();
const here = dirname(fileURLToPath(import.meta.url));

async function home(): Promise<{ s: AnthropicServer; env: ClaudeTestEnv; agent: Agent }> {
  const s = await startAnthropicServer({ rules: [] });
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

/** What the Claude Agent SDK's own session function `call` makes of this home. */
async function peer(env: ClaudeTestEnv, call: string): Promise<unknown> {
  const script = `import * as sdk from "@anthropic-ai/claude-agent-sdk"; const value = await ${call}; process.stdout.write(JSON.stringify(value ?? null));`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
    cwd: here,
    env: { PATH: process.env.PATH ?? "", HOME: env.env.HOME!, CLAUDE_CONFIG_DIR: env.env.CLAUDE_CONFIG_DIR! },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as unknown;
}

/** Every transcript of the home, by path, with its bytes. */
async function transcripts(env: ClaudeTestEnv): Promise<Map<string, string>> {
  const projects = join(env.env.CLAUDE_CONFIG_DIR!, "projects");
  const found = new Map<string, string>();
  for (const folder of await readdir(projects))
    for (const name of await readdir(join(projects, folder)))
      if (name.endsWith(".jsonl") && (await stat(join(projects, folder, name))).isFile())
        found.set(join(projects, folder, name), await readFile(join(projects, folder, name), "utf8"));
  return found;
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** The user texts of a Messages request body, in order. */
function userTexts(body: unknown): string[] {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  return messages
    .filter((message) => message.role === "user")
    .flatMap((message) =>
      typeof message.content === "string"
        ? [message.content]
        : (message.content as { type: string; text?: string }[]).filter((b) => b.type === "text").map((b) => b.text ?? ""),
    );
}

describe("claude: forkSession (real binary)", { timeout: 240_000 }, () => {
  it("a fork at the first reply holds the first turn on new uuids; the CLI resumes it with that history only; the Claude Agent SDK reads it", async () => {
    const a = await home();
    const thread = a.agent.thread("original");
    const id = (await thread.run("first turn alpha")).sessionId!;
    await thread.run("second turn beta");
    const before = await transcripts(a.env);
    const original = (await a.agent.getSessionMessages(id)).messages;
    expect(original.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);

    const fork = await a.agent.forkSession(id, { upToMessageId: original[1]!.id! });
    expect(fork.sessionId).not.toBe(id);
    // The original is untouched; the fork is one new transcript beside it.
    const after = await transcripts(a.env);
    for (const [path, content] of before) expect(after.get(path)).toBe(content);
    const added = [...after.keys()].filter((path) => !before.has(path));
    expect(added.map((path) => path.split("/").slice(-2).join("/"))).toEqual([
      `${[...before.keys()][0]!.split("/").at(-2)}/${fork.sessionId}.jsonl`,
    ]);
    expect((await stat(added[0]!)).mode & 0o777).toBe(0o600);

    const forked = (await a.agent.getSessionMessages(fork.sessionId)).messages;
    expect(forked.map((m) => [m.role, m.text])).toEqual(original.slice(0, 2).map((m) => [m.role, m.text]));
    // New uuids, the chain kept on them: every entry's parent is an entry of the fork (or none).
    const lines = after
      .get(added[0]!)!
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const uuids = new Set(lines.map((line) => line.uuid).filter((uuid) => typeof uuid === "string"));
    const originalUuids = new Set(
      before
        .get([...before.keys()][0]!)!
        .trimEnd()
        .split("\n")
        .map((line) => (JSON.parse(line) as { uuid?: string }).uuid),
    );
    expect([...uuids].filter((uuid) => originalUuids.has(uuid as string))).toEqual([]);
    for (const line of lines) {
      expect(line.sessionId).toBe(fork.sessionId);
      if (typeof line.parentUuid === "string") expect(uuids.has(line.parentUuid)).toBe(true);
    }
    expect(lines.filter((line) => line.type === "file-history-snapshot")).toEqual([]);
    const info = await a.agent.getSessionInfo(id);
    expect(await a.agent.getSessionInfo(fork.sessionId)).toMatchObject({
      sessionId: fork.sessionId,
      title: `${info.title} (fork)`,
      firstPrompt: "first turn alpha",
      cwd: a.env.workDir,
    });

    // The Claude Agent SDK reads the fork as a session of its own.
    expect(await peer(a.env, `sdk.getSessionInfo(${JSON.stringify(fork.sessionId)})`)).toMatchObject({
      sessionId: fork.sessionId,
      customTitle: `${info.title} (fork)`,
      firstPrompt: "first turn alpha",
    });
    const peerMessages = (await peer(a.env, `sdk.getSessionMessages(${JSON.stringify(fork.sessionId)})`)) as {
      type: string;
      uuid: string;
    }[];
    expect(peerMessages.map((m) => m.type)).toEqual(["user", "assistant"]);
    expect(peerMessages.map((m) => m.uuid)).toEqual(forked.map((m) => m.id));

    // The CLI resumes the fork: the model sees the first turn and the new prompt, not the second turn.
    const requests = a.s.requests.length;
    const resumed = await a.agent.thread("forked", { adoptSession: fork.sessionId }).run("third turn gamma");
    expect(resumed.sessionId).toBe(fork.sessionId);
    const turn = a.s.requests.slice(requests).find((request) => userTexts(request.body).some((text) => text.includes("third turn gamma")));
    const seen = userTexts(turn!.body);
    expect(seen.some((text) => text.includes("first turn alpha"))).toBe(true);
    expect(seen.some((text) => text.includes("second turn beta"))).toBe(false);
    expect(resumed.text).toMatch(/first user text: "first turn alpha"/);
    // The original goes on as it was.
    expect((await a.agent.getSessionMessages(id)).messages.map((m) => m.text)).toEqual(original.map((m) => m.text));
  });

  it("the fork's lines are the Claude Agent SDK's forkSession's, key by key but for new ids and times, and its parent chain the same", async () => {
    const a = await home();
    const thread = a.agent.thread("original");
    const id = (await thread.run("first turn alpha")).sessionId!;
    await thread.run("second turn beta");
    const upToMessageId = (await a.agent.getSessionMessages(id)).messages[1]!.id!;
    const ours = (await a.agent.forkSession(id, { upToMessageId })).sessionId;
    const theirs = (
      (await peer(a.env, `sdk.forkSession(${JSON.stringify(id)}, ${JSON.stringify({ upToMessageId })})`)) as { sessionId: string }
    ).sessionId;
    const all = await transcripts(a.env);
    const lines = (sessionId: string): Record<string, unknown>[] =>
      [...all]
        .find(([path]) => path.endsWith(`/${sessionId}.jsonl`))![1]
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    // What differs by nature: the new ids, the stamp of the last entry, the fork's own session id.
    const comparable = (forked: Record<string, unknown>[]): unknown[] =>
      forked.map((line) => {
        const rest: Record<string, unknown> = { ...line };
        for (const key of ["uuid", "parentUuid", "logicalParentUuid", "timestamp", "sessionId"]) delete rest[key];
        return { ...rest, parent: forked.findIndex((other) => other.uuid !== undefined && other.uuid === line.parentUuid) };
      });
    expect(comparable(lines(ours))).toEqual(comparable(lines(theirs)));
  });

  it("a fork without upToMessageId copies the whole conversation under the title given", async () => {
    const a = await home();
    const thread = a.agent.thread("original");
    const id = (await thread.run("only turn")).sessionId!;
    const fork = await a.agent.forkSession(id, { title: "  Branch B  " });
    expect((await a.agent.getSessionMessages(fork.sessionId)).messages.map((m) => m.text)).toEqual(
      (await a.agent.getSessionMessages(id)).messages.map((m) => m.text),
    );
    expect(await a.agent.getSessionInfo(fork.sessionId)).toMatchObject({ title: "Branch B" });
    expect(await peer(a.env, `sdk.getSessionInfo(${JSON.stringify(fork.sessionId)})`)).toMatchObject({ customTitle: "Branch B" });
  });

  it("a message id the session does not hold, an unknown session, bad options and a hard-linked transcript are refused: nothing is written", async () => {
    const a = await home();
    const id = (await a.agent.thread("original").run("keep me")).sessionId!;
    const before = await transcripts(a.env);

    const unknownMessage = findError(await failure(a.agent.forkSession(id, { upToMessageId: randomUUID() })), InvalidOptionError);
    expect(unknownMessage).toMatchObject({ subject: "forkSession arguments", field: "upToMessageId" });
    expect(isError(await failure(a.agent.forkSession(randomUUID())), ErrResumeRejected)).toBe(true);
    for (const [options, field] of [
      [{ upToMessageId: "" }, "upToMessageId"],
      [{ upToMessageId: "a\nb" }, "upToMessageId"],
      [{ title: "   " }, "title"],
      [{ upTo: "x" }, "upTo"],
    ] as const)
      expect(findError(await failure(a.agent.forkSession(id, options as never)), InvalidOptionError)).toMatchObject({
        subject: "forkSession arguments",
        field,
      });
    expect(findError(await failure(a.agent.forkSession(`../${id}`)), InvalidOptionError)).toMatchObject({ field: "sessionId" });
    // A hard link in place of the transcript: its bytes are also a file elsewhere; not read, not forked.
    const path = [...before.keys()][0]!;
    const second = join(a.env.root, "second-name.jsonl");
    await link(path, second);
    expect(findError(await failure(a.agent.forkSession(id)), DriverError)).toMatchObject({ code: "INVALID" });
    expect(await transcripts(a.env)).toEqual(before);
  });
});
