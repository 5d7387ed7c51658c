import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { startOpenAIServer, whenPromptSays, whenToolOutput, type CodexTestEnv, type OpenAIServer } from "@adaptor/testkit";
import { Agent, DriverError, ErrCode, ErrResumeRejected, InvalidOptionError, findError, isError, type SessionMessage } from "adaptor";
import { codex, defaultCodexCommand } from "@adaptor/codex";
import { codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// Reading what was said in one of the codex CLI's own threads (`agent.getSessionMessages`) through
// `thread/turns/list` on a short-lived app-server, so an app shows a conversation before adopting it.

const open = closedAfterEach();
const track = (item: { close(): Promise<void> }): void => void open.push(item);

async function server(): Promise<OpenAIServer> {
  const s = await startOpenAIServer({ rules: [] });
  open.push(s);
  return s;
}

/** A thread made by the codex CLI itself (`codex exec --json`, the prompt on stdin); its id. */
async function cliThread(env: CodexTestEnv, prompt: string): Promise<string> {
  const running = promisify(execFile)(defaultCodexCommand(), ["exec", "--json", "--skip-git-repo-check", "-"], {
    cwd: env.workDir,
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

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** The messages without their times and ids, which the test checks apart. */
function said(messages: readonly SessionMessage[]): Omit<SessionMessage, "at" | "id">[] {
  return messages.map(({ at: _at, id: _id, ...rest }) => rest);
}

describe.each(["app-server", "exec"] as const)(
  "codex over %s: reading a thread's messages (real binary)",
  { timeout: 240_000 },
  (transport) => {
    it("a thread of two turns with a command reads back as its prompts, replies, tool call and result, oldest first, and pages", async () => {
      const s = await server();
      const a = await codexHost(s, new MemoryThreadStore(), track, transport);
      const thread = a.agent.thread("shown");
      const first = await thread.run("SHELL_CMD echo fine", { policy: { sandbox: "unrestricted" } });
      const second = await thread.run("the second turn");
      const call = first.transcript().find((item) => item.kind === "tool-call")!;
      const sessionId = first.sessionId!;

      const page = await a.agent.getSessionMessages(sessionId);
      expect(page.nextCursor).toBeUndefined();
      // codex's own call id, the one app-server runs report (`codex exec --json` names its items `item_<n>` instead).
      const callId = page.messages[1]?.toolCalls?.[0]?.toolCallId;
      expect(callId).toMatch(/^call_/);
      if (transport === "app-server") expect(callId).toBe(call.toolCallId);
      expect(said(page.messages)).toEqual([
        { role: "user", text: "SHELL_CMD echo fine" },
        {
          role: "assistant",
          text: "",
          toolCalls: [{ toolCallId: callId, toolName: "shell", input: { command: "/bin/bash -lc 'echo fine'", cwd: a.env.workDir } }],
          toolResults: [{ toolCallId: callId, output: "fine\n", isError: false }],
        },
        { role: "assistant", text: first.text },
        { role: "user", text: "the second turn" },
        { role: "assistant", text: second.text },
      ]);
      for (const message of page.messages) {
        expect(message.at).toBeInstanceOf(Date);
        expect(message.id).toEqual(expect.any(String));
      }

      for (const limit of [1, 2, 3]) {
        const sizes: number[] = [];
        const paged: SessionMessage[] = [];
        let cursor: string | undefined;
        do {
          const next = await a.agent.getSessionMessages(sessionId, { limit, ...(cursor ? { cursor } : {}) });
          sizes.push(next.messages.length);
          paged.push(...next.messages);
          cursor = next.nextCursor;
        } while (cursor);
        expect(paged).toEqual(page.messages);
        expect(sizes.every((size) => size > 0 && size <= limit)).toBe(true);
        expect(sizes.slice(0, -1).every((size) => size === limit)).toBe(true);
      }
    });

    it("one assistant message per model reply: a reply of tool calls only is its own message, not folded into the one before", async () => {
      const s = await startOpenAIServer({
        rules: [
          {
            name: "r1",
            when: whenPromptSays("three replies"),
            reply: { text: "first", functionCall: { name: "exec_command", arguments: JSON.stringify({ cmd: "echo one" }) } },
          },
          {
            name: "r2",
            when: whenToolOutput("exec_command", /one/),
            reply: { functionCall: { name: "exec_command", arguments: JSON.stringify({ cmd: "echo two" }) } },
          },
          { name: "r3", when: whenToolOutput("exec_command", /two/), reply: { text: "last" } },
        ],
      });
      open.push(s);
      const a = await codexHost(s, new MemoryThreadStore(), track, transport);
      const run = await a.agent.run("three replies", { policy: { sandbox: "unrestricted" } });
      expect(s.requests.filter((request) => request.rule).map((request) => request.rule)).toEqual(["r1", "r2", "r3"]);
      const { messages } = await a.agent.getSessionMessages(run.sessionId!);
      const shown = messages.map((m) => [m.role, m.text, (m.toolCalls ?? []).map((call) => (call.input as { command?: string }).command)]);
      expect(shown).toEqual([
        ["user", "three replies", []],
        ["assistant", "first", ["/bin/bash -lc 'echo one'"]],
        ["assistant", "", ["/bin/bash -lc 'echo two'"]],
        ["assistant", "last", []],
      ]);
      expect(messages[2]?.toolResults?.map((result) => result.output)).toEqual(["two\n"]);
    });

    it("a thread codex exec made reads the same; a wrong id is ErrResumeRejected; a bad cursor is refused", async () => {
      const s = await server();
      const a = await codexHost(s, new MemoryThreadStore(), track, transport);
      const b = await codexHost(s, new MemoryThreadStore(), track, transport);
      const theirs = await cliThread(b.env, "made by hand");
      const read = await b.agent.getSessionMessages(theirs);
      expect(said(read.messages)).toEqual([
        { role: "user", text: "made by hand" },
        { role: "assistant", text: expect.stringContaining('first user text: "made by hand"') },
      ]);
      for (const wrong of [theirs, "019b0000-0000-7000-8000-000000000000", "not-a-thread-id"]) {
        const err = await failure(a.agent.getSessionMessages(wrong));
        expect(isError(err, ErrResumeRejected)).toBe(true);
      }
      const err = await failure(b.agent.getSessionMessages(theirs, { cursor: "not-a-cursor" }));
      expect(findError(err, InvalidOptionError)).toMatchObject({ subject: "getSessionMessages query", field: "cursor" });

      // A cursor is tied to its thread and to a message the read has not given yet.
      const first = await b.agent.getSessionMessages(theirs, { limit: 1 });
      const position = JSON.parse(Buffer.from(first.nextCursor!, "base64url").toString("utf8")) as unknown[];
      expect(said((await b.agent.getSessionMessages(theirs, { cursor: first.nextCursor! })).messages)).toEqual(
        said(read.messages.slice(1)),
      );
      const [, from, batch] = position;
      const other = "019b0000-0000-7000-8000-000000000000";
      for (const forged of [
        [other, ...position.slice(1)],
        [theirs, from, 999_999, 1],
        [theirs, from, batch, 999],
        [null, 1, 1],
      ]) {
        const cursor = Buffer.from(JSON.stringify(forged), "utf8").toString("base64url");
        const refused = await failure(b.agent.getSessionMessages(theirs, { cursor }));
        expect(findError(refused, InvalidOptionError), JSON.stringify(forged)).toMatchObject({
          subject: "getSessionMessages query",
          field: "cursor",
        });
      }
    });
  },
);

describe("codex: reading a thread of long command outputs (real binary)", { timeout: 240_000 }, () => {
  it("turns are asked a few at a time, so a thread longer than maxLineBytes reads; a turn longer than it is RESOURCE_EXHAUSTED", async () => {
    const s = await server();
    const a = await codexHost(s, new MemoryThreadStore(), track);
    const thread = a.agent.thread("long");
    let sessionId = "";
    for (let turn = 0; turn < 3; turn++)
      sessionId = (await thread.run("SHELL_CMD head -c 100000 /dev/zero | tr '\\0' x", { policy: { sandbox: "unrestricted" } })).sessionId!;
    const reader = (maxLineBytes: number): Agent => {
      const agent = new Agent(codex({ env: a.env.env, inheritEnv: false, killGraceMs: 1000, maxLineBytes }), { cwd: a.env.workDir });
      track(agent);
      return agent;
    };

    // codex keeps 64 KiB of each output: one turn's answer is over 62 500 bytes (two are over
    // 125 000), two turns' under 150 000, so all three in one line would be over 187 000.
    const page = await reader(170_000).getSessionMessages(sessionId);
    expect(page.nextCursor).toBeUndefined();
    const outputs = page.messages.flatMap((message) => message.toolResults ?? []).map((result) => result.output);
    expect(outputs).toEqual(Array(3).fill(expect.stringMatching(/^x{30000}[\s\S]*x{30000}$/)));

    const err = await failure(reader(50_000).getSessionMessages(sessionId));
    expect(findError(err, DriverError)).toMatchObject({ op: "read", code: ErrCode.ResourceExhausted });
  });
});
