import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent, ErrAgentClosed, ErrResumeRejected, InvalidOptionError, findError, isError, type SessionMessage } from "adaptor";
import { claude, defaultClaudeCommand } from "@adaptor/claude";
import { closedAfterEach } from "../support/closed-after-each.js";

// Reading what was said in one of the Claude Code CLI's own sessions (`agent.getSessionMessages`),
// so an app offering "pick a past conversation" shows it before adopting it.

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

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
/** A 1×1 GIF. */
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

/** The messages without their times and ids, which the test checks apart. */
function said(messages: readonly SessionMessage[]): Omit<SessionMessage, "at" | "id">[] {
  return messages.map(({ at: _at, id: _id, ...rest }) => rest);
}

describe("claude: reading a CLI session's messages (real binary)", { timeout: 240_000 }, () => {
  it("a session of two turns with a tool call reads back as its prompts, replies, tool call and result, oldest first, and pages", async () => {
    const s = await server();
    const a = await home(s);
    const thread = a.agent.thread("shown");
    const first = await thread.run("SHELL_CMD echo fine", { policy: { approvals: { permission: "auto_approve" } } });
    await thread.run("the second turn");
    const call = first.transcript().find((item) => item.kind === "tool-call")!;
    const sessionId = first.sessionId!;

    const page = await a.agent.getSessionMessages(sessionId);
    expect(page.nextCursor).toBeUndefined();
    expect(said(page.messages)).toEqual([
      { role: "user", text: "SHELL_CMD echo fine" },
      {
        role: "assistant",
        text: "",
        toolCalls: [{ toolCallId: call.toolCallId, toolName: "Bash", input: { command: "echo fine", description: "Run echo fine" } }],
        toolResults: [{ toolCallId: call.toolCallId, output: "fine", isError: false }],
      },
      { role: "assistant", text: "Done: fine" },
      { role: "user", text: "the second turn" },
      { role: "assistant", text: 'Fake reply. I saw 5 message(s); first user text: "SHELL_CMD echo fine"' },
    ]);
    for (const message of page.messages) {
      expect(message.at).toBeInstanceOf(Date);
      expect(message.id).toMatch(/^[0-9a-f-]{36}$/);
    }
    for (let i = 1; i < page.messages.length; i++)
      expect(page.messages[i]!.at!.getTime()).toBeGreaterThanOrEqual(page.messages[i - 1]!.at!.getTime());

    // Pages of two, through the cursor, give the same messages without repeats.
    const sizes: number[] = [];
    const paged: SessionMessage[] = [];
    let cursor: string | undefined;
    do {
      const next = await a.agent.getSessionMessages(sessionId, { limit: 2, ...(cursor ? { cursor } : {}) });
      sizes.push(next.messages.length);
      paged.push(...next.messages);
      cursor = next.nextCursor;
    } while (cursor);
    expect(sizes).toEqual([2, 2, 1]);
    expect(paged).toEqual(page.messages);

    // A cursor given before a later turn still reads the conversation as it was then.
    const head = await a.agent.getSessionMessages(sessionId, { limit: 3 });
    await thread.run("a third turn");
    const rest = await a.agent.getSessionMessages(sessionId, { cursor: head.nextCursor! });
    expect(said(rest.messages)).toEqual(said(page.messages.slice(3)));
    expect(rest.nextCursor).toBeUndefined();
    expect((await a.agent.getSessionMessages(sessionId)).messages.at(-2)).toMatchObject({ role: "user", text: "a third turn" });
  });

  it("after thread.rewind() the conversation read is the one the CLI continues: the turn undone stays in the transcript but is not shown", async () => {
    const s = await server();
    const a = await home(s);
    const agent = new Agent(claude({ env: a.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
      cwd: a.env.workDir,
      checkpointFiles: { dir: join(a.env.root, "checkpoints") },
      onApproval: (request) => request.approve(),
    });
    open.push(agent);
    const thread = agent.thread("undo");
    await thread.run("turn one");
    const undone = await thread.run("SHELL_CMD echo undone-marker");
    await thread.rewind(undone.runId);
    const next = await thread.run("turn three");
    expect(next.sessionId).toBe(undone.sessionId);
    const projects = join(a.env.configDir, "projects");
    const transcript = await readFile(join(projects, (await readdir(projects))[0]!, `${next.sessionId}.jsonl`), "utf8");
    expect(transcript).toContain("undone-marker"); // the branch left behind is still in the file

    expect(said((await agent.getSessionMessages(next.sessionId!)).messages)).toEqual([
      { role: "user", text: "turn one" },
      { role: "assistant", text: 'Fake reply. I saw 1 message(s); first user text: "turn one"' },
      { role: "user", text: "turn three" },
      { role: "assistant", text: 'Fake reply. I saw 3 message(s); first user text: "turn one"' },
    ]);
  });

  it("a prompt's images read back as image parts (media type, decoded size, no bytes), an image-only prompt too, in order with the text", async () => {
    const s = await server();
    const a = await home(s);
    const thread = a.agent.thread("pictures");
    await thread.run([
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "image", data: GIF, mimeType: "image/gif" },
      "what colour is this?",
    ]);
    const last = await thread.run([{ type: "image", data: PNG, mimeType: "image/png" }]);

    expect(said((await a.agent.getSessionMessages(last.sessionId!)).messages)).toEqual([
      {
        role: "user",
        text: "what colour is this?",
        images: [
          { mediaType: "image/png", byteLength: PNG.length },
          { mediaType: "image/gif", byteLength: GIF.length },
        ],
      },
      // The CLI tells the model where it keeps each image: the reply quotes that, not the prompt.
      { role: "assistant", text: expect.stringMatching(/^Fake reply\. I saw 1 message\(s\)/) as string },
      { role: "user", text: "", images: [{ mediaType: "image/png", byteLength: PNG.length }] },
      { role: "assistant", text: expect.stringMatching(/^Fake reply\. I saw 3 message\(s\)/) as string },
    ]);
  });

  it("a session the CLI made by hand reads the same; a wrong id or one of another home is ErrResumeRejected; a bad query is refused before reading", async () => {
    const s = await server();
    const a = await home(s);
    const b = await home(s);
    const { stdout } = await promisify(execFile)(
      defaultClaudeCommand(),
      ["-p", "made by hand", "--output-format", "json", "--model", "claude-sonnet-4-5"],
      { cwd: b.env.workDir, env: b.env.env as NodeJS.ProcessEnv, timeout: 60_000 },
    );
    const theirs = (JSON.parse(stdout) as { session_id: string }).session_id;
    expect(said((await b.agent.getSessionMessages(theirs)).messages)).toEqual([
      { role: "user", text: "made by hand" },
      { role: "assistant", text: 'Fake reply. I saw 1 message(s); first user text: "made by hand"' },
    ]);

    for (const wrong of [theirs, randomUUID(), "not-a-session-id"]) {
      const err = await failure(a.agent.getSessionMessages(wrong));
      expect(isError(err, ErrResumeRejected)).toBe(true);
      expect(String((err as Error).message)).toContain(wrong);
    }
    for (const [query, field] of [
      [{ limit: 0 }, "limit"],
      [{ limit: 1001 }, "limit"],
      [{ cursor: "not-a-cursor" }, "cursor"],
      [{ cwd: b.env.workDir }, "cwd"],
    ] as const) {
      const err = await failure(b.agent.getSessionMessages(theirs, query as never));
      expect(findError(err, InvalidOptionError)).toMatchObject({ subject: "getSessionMessages query", field });
    }
    expect(findError(await failure(b.agent.getSessionMessages("")), InvalidOptionError)).toMatchObject({
      subject: "getSessionMessages arguments",
      field: "sessionId",
    });
    await b.agent.close();
    expect(isError(await failure(b.agent.getSessionMessages(theirs)), ErrAgentClosed)).toBe(true);
  });
});
