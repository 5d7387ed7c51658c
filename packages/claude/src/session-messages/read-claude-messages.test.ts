import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, open, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DriverError, InvalidOptionError, findError } from "@adaptor/errors";
import { readClaudeMessages } from "./read-claude-messages.js";
import { chainTo, ConversationMessages, TranscriptIndexer } from "./transcript-index.js";
import { scanLines } from "./transcript-lines.js";

// Reading a Claude Code transcript's conversation: the main chain from its last entry back,
// side chains, rewound branches, compactions, long entries and torn lines.

const homes: string[] = [];
afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

const SESSION = "5b3c2f6e-2a57-4d8a-9d2e-0c6f6f0b9a11";
let clock = Date.parse("2026-12-07T09:00:00.000Z");

type Line = Record<string, unknown>;

function entry(uuid: string, parentUuid: string | null, fields: Line): Line {
  clock += 1000;
  return { parentUuid, isSidechain: false, ...fields, uuid, timestamp: new Date(clock).toISOString(), sessionId: SESSION };
}
const prompt = (uuid: string, parent: string | null, text: string): Line =>
  entry(uuid, parent, { type: "user", message: { role: "user", content: [{ type: "text", text }] } });
const reply = (uuid: string, parent: string, id: string, content: unknown[]): Line =>
  entry(uuid, parent, { type: "assistant", message: { id, role: "assistant", content } });
const results = (uuid: string, parent: string, content: unknown[]): Line =>
  entry(uuid, parent, { type: "user", message: { role: "user", content } });
const attachment = (uuid: string, parent: string): Line => entry(uuid, parent, { type: "attachment", attachment: { type: "environment" } });

async function transcript(lines: readonly (Line | string)[]): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), "claude-messages-"));
  homes.push(home);
  const folder = join(home, "projects", "-work-app");
  await mkdir(folder, { recursive: true });
  await writeFile(
    join(folder, `${SESSION}.jsonl`),
    lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n"),
  );
  return home;
}

async function read(home: string, query: { limit?: number; cursor?: string } = {}) {
  return readClaudeMessages(
    { configDir: home },
    { sessionId: SESSION, limit: query.limit ?? 100, ...(query.cursor ? { cursor: query.cursor } : {}) },
  );
}

function texts(page: Awaited<ReturnType<typeof read>>): string[] {
  return page!.messages.map((message) => `${message.role}: ${message.text}`);
}

describe("readClaudeMessages", () => {
  it("shows the main chain ending at the last entry: a rewound branch, side chains, meta prompts and attachments are left out", async () => {
    const home = await transcript([
      { type: "queue-operation", operation: "enqueue", sessionId: SESSION },
      prompt("u1", null, "first question"),
      attachment("at1", "u1"),
      reply("a1", "at1", "msg_1", [{ type: "text", text: "first answer" }]),
      prompt("u2", "a1", "a question later rewound"),
      reply("a2", "u2", "msg_2", [{ type: "text", text: "an answer left behind" }]),
      { ...prompt("s1", "a1", "a subagent's prompt"), isSidechain: true },
      { ...reply("s2", "s1", "msg_s", [{ type: "text", text: "a subagent's answer" }]), isSidechain: true },
      { ...prompt("m1", "a1", "<system-reminder>meta</system-reminder>"), isMeta: true },
      prompt("u3", "m1", "the question asked instead"),
      reply("a3", "u3", "msg_3", [{ type: "text", text: "the answer kept" }]),
    ]);
    expect(texts(await read(home))).toEqual([
      "user: first question",
      "assistant: first answer",
      "user: the question asked instead",
      "assistant: the answer kept",
    ]);
  });

  it("joins the blocks of one reply and the tool results sent after it into one assistant message, with times and ids", async () => {
    const home = await transcript([
      prompt("u1", null, "list the files"),
      reply("a1", "u1", "msg_1", [{ type: "text", text: "Let me look." }]),
      reply("a2", "a1", "msg_1", [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }]),
      reply("a3", "a2", "msg_1", [{ type: "tool_use", id: "toolu_2", name: "Read", input: { file_path: "/x" } }]),
      results("r1", "a3", [{ type: "tool_result", tool_use_id: "toolu_1", content: "a\nb", is_error: false }]),
      results("r2", "r1", [
        { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "no such file" }], is_error: true },
      ]),
      reply("a4", "r2", "msg_2", [
        { type: "thinking", thinking: "hidden" },
        { type: "text", text: "Two files." },
      ]),
    ]);
    const page = await read(home);
    expect(page!.messages).toEqual([
      { role: "user", text: "list the files", at: expect.any(Date), id: "u1" },
      {
        role: "assistant",
        text: "Let me look.",
        toolCalls: [
          { toolCallId: "toolu_1", toolName: "Bash", input: { command: "ls" } },
          { toolCallId: "toolu_2", toolName: "Read", input: { file_path: "/x" } },
        ],
        toolResults: [
          { toolCallId: "toolu_1", output: "a\nb", isError: false },
          { toolCallId: "toolu_2", output: "no such file", isError: true },
        ],
        at: expect.any(Date),
        id: "a1",
      },
      { role: "assistant", text: "Two files.", at: expect.any(Date), id: "a4" },
    ]);
    expect(page!.messages[0]!.at!.getTime()).toBeLessThan(page!.messages[1]!.at!.getTime());
  });

  it("follows a compaction back to the conversation before it; the compaction summary is not shown", async () => {
    const home = await transcript([
      prompt("u1", null, "before the compaction"),
      reply("a1", "u1", "msg_1", [{ type: "text", text: "old answer" }]),
      entry("c1", null, { type: "system", subtype: "compact_boundary", logicalParentUuid: "a1" }),
      { ...prompt("cs", "c1", "This session is being continued from a previous conversation..."), isCompactSummary: true },
      prompt("u2", "cs", "after the compaction"),
      reply("a2", "u2", "msg_2", [{ type: "text", text: "new answer" }]),
    ]);
    expect(texts(await read(home))).toEqual([
      "user: before the compaction",
      "assistant: old answer",
      "user: after the compaction",
      "assistant: new answer",
    ]);
  });

  it("pages with a cursor that keeps to the conversation as it was; a torn last line is not read; a cursor of nothing of its own is refused", async () => {
    const lines = [
      prompt("u1", null, "one"),
      reply("a1", "u1", "msg_1", [{ type: "text", text: "two" }]),
      prompt("u2", "a1", "three"),
      reply("a2", "u2", "msg_2", [{ type: "text", text: "four" }]),
      prompt("u3", "a2", "five"),
    ];
    const home = await transcript([...lines, '{"parentUuid":"u3","isSidechain":false,"type":"assistant","mess']);
    const first = await read(home, { limit: 2 });
    expect(texts(first)).toEqual(["user: one", "assistant: two"]);
    const second = await read(home, { limit: 2, cursor: first!.nextCursor! });
    expect(texts(second)).toEqual(["user: three", "assistant: four"]);
    // The conversation goes on meanwhile: the cursor still reads to where it was when it was given.
    const folder = join(home, "projects", "-work-app");
    await writeFile(
      join(folder, `${SESSION}.jsonl`),
      [...lines, reply("a3", "u3", "msg_3", [{ type: "text", text: "six" }])].map((line) => JSON.stringify(line)).join("\n") + "\n",
    );
    const third = await read(home, { limit: 2, cursor: second!.nextCursor! });
    expect(texts(third)).toEqual(["user: five"]);
    expect(third!.nextCursor).toBeUndefined();
    expect(texts(await read(home))).toHaveLength(6);

    for (const cursor of [
      "not-a-cursor",
      Buffer.from(JSON.stringify(["no-such-entry", 1])).toString("base64url"),
      Buffer.from(JSON.stringify(["a2", 99])).toString("base64url"),
    ]) {
      const err = await read(home, { cursor }).catch((e: unknown) => e);
      expect(findError(err, InvalidOptionError)).toMatchObject({ subject: "getSessionMessages query", field: "cursor" });
    }
  });

  it("a session the home does not hold, an id that is not a UUID, and a link in place of the transcript are not found", async () => {
    const home = await transcript([prompt("u1", null, "hello")]);
    expect(await readClaudeMessages({ configDir: home }, { sessionId: randomUUID(), limit: 10 })).toBeUndefined();
    expect(await readClaudeMessages({ configDir: home }, { sessionId: "../../etc/passwd", limit: 10 })).toBeUndefined();
    const linked = randomUUID();
    await symlink(join(home, "projects", "-work-app", `${SESSION}.jsonl`), join(home, "projects", "-work-app", `${linked}.jsonl`));
    expect(await readClaudeMessages({ configDir: home }, { sessionId: linked, limit: 10 })).toBeUndefined();
    const empty = await mkdtemp(join(tmpdir(), "claude-messages-"));
    homes.push(empty);
    expect(await readClaudeMessages({ configDir: empty }, { sessionId: SESSION, limit: 10 })).toBeUndefined();
  });
});

describe("transcript index", () => {
  it("an entry longer than the scan keeps whole is linked from its head and its uuid but not shown, and the chain goes on past it", async () => {
    const big = "x".repeat(5000);
    const home = await transcript([
      prompt("11111111-1111-4111-8111-111111111111", null, "short"),
      reply("22222222-2222-4222-8222-222222222222", "11111111-1111-4111-8111-111111111111", "msg_1", [{ type: "text", text: big }]),
      prompt("33333333-3333-4333-8333-333333333333", "22222222-2222-4222-8222-222222222222", "after the long one"),
    ]);
    const handle = await open(join(home, "projects", "-work-app", `${SESSION}.jsonl`));
    try {
      const indexer = new TranscriptIndexer();
      const seen: { length: number; whole: boolean }[] = [];
      await scanLines(handle, (await handle.stat()).size, 1024, (line) => {
        seen.push({ length: line.length, whole: line.text !== undefined });
        indexer.add(line);
      });
      expect(seen.map((line) => line.whole)).toEqual([true, false, true]);
      expect(seen[1]!.length).toBeGreaterThan(5000);
      const index = indexer.done();
      const chain = chainTo(index, index.leaf!);
      expect([...chain].map((id) => [index.entry(id).uuid.slice(0, 1), index.entry(id).kind])).toEqual([
        ["1", "prompt"],
        ["2", "other"],
        ["3", "prompt"],
      ]);
      const messages = new ConversationMessages(index, chain);
      expect(Array.from({ length: messages.count }, (_, i) => messages.role(i))).toEqual(["user", "user"]);
    } finally {
      await handle.close();
    }
  });

  it("a tool result longer than the scan keeps whole is linked by its uuid before a longer toolUseResult, even cut across two reads", async () => {
    // The CLI's own key order for a tool result entry: the uuid and timestamp follow the message,
    // and toolUseResult (the output again) follows them.
    const cli = (fields: Line): Line => ({
      ...fields,
      userType: "external",
      entrypoint: "sdk-cli",
      cwd: "/work/app",
      sessionId: SESSION,
      version: "2.1.332",
      gitBranch: "",
    });
    const first = "11111111-1111-4111-8111-111111111111";
    const call = "22222222-2222-4222-8222-222222222222";
    const result = "33333333-3333-4333-8333-333333333333";
    const summary = "44444444-4444-4444-8444-444444444444";
    const output = "x".repeat(300_000);
    const lines = (pad: number): string =>
      [
        cli({
          parentUuid: null,
          isSidechain: false,
          promptId: "p1",
          type: "user",
          message: { role: "user", content: "read it" },
          uuid: first,
          timestamp: "2026-12-07T09:00:00.000Z",
        }),
        cli({
          parentUuid: first,
          isSidechain: false,
          message: {
            id: "msg_1",
            role: "assistant",
            content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/x" } }],
          },
          type: "assistant",
          uuid: call,
          timestamp: "2026-12-07T09:00:01.000Z",
        }),
        cli({
          parentUuid: call,
          isSidechain: false,
          promptId: "p1",
          type: "user",
          message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "y".repeat(pad) }] },
          uuid: result,
          timestamp: "2026-12-07T09:00:02.000Z",
          toolUseResult: { stdout: output },
        }),
        cli({
          parentUuid: result,
          isSidechain: false,
          message: { id: "msg_2", role: "assistant", content: [{ type: "text", text: "done" }] },
          type: "assistant",
          uuid: summary,
          timestamp: "2026-12-07T09:00:03.000Z",
        }),
      ]
        .map((line) => JSON.stringify(line))
        .join("\n");
    // The result's uuid starts 20 bytes before the scan's second read of 256 KiB, so the two reads cut it.
    const at = lines(0).indexOf(`"uuid":"${result}"`);
    const text = lines(256 * 1024 - 20 - at);
    expect(text.indexOf(`"uuid":"${result}"`)).toBe(256 * 1024 - 20);
    const home = await transcript([text]);
    const handle = await open(join(home, "projects", "-work-app", `${SESSION}.jsonl`));
    try {
      const indexer = new TranscriptIndexer();
      await scanLines(handle, (await handle.stat()).size, 1024, (line) => indexer.add(line));
      const index = indexer.done();
      const chain = chainTo(index, index.leaf!);
      expect([...chain].map((id) => [index.entry(id).uuid, index.entry(id).kind])).toEqual([
        [first, "prompt"],
        [call, "assistant"],
        [result, "other"],
        [summary, "assistant"],
      ]);
    } finally {
      await handle.close();
    }
  });

  it("an index holds at most its cap of uuids (entries and the parents they name): past it the read is RESOURCE_EXHAUSTED", async () => {
    const lines = [prompt("u1", null, "one"), reply("a1", "u1", "msg_1", [{ type: "text", text: "two" }]), prompt("u2", "a1", "three")];
    const home = await transcript(lines);
    const scan = async (cap: number): Promise<unknown> => {
      const handle = await open(join(home, "projects", "-work-app", `${SESSION}.jsonl`));
      try {
        const indexer = new TranscriptIndexer(cap);
        await scanLines(handle, (await handle.stat()).size, 1024, (line) => indexer.add(line));
        return indexer.done().size;
      } catch (error) {
        return error;
      } finally {
        await handle.close();
      }
    };
    expect(await scan(3)).toBe(3);
    expect(findError(await scan(2), DriverError)).toMatchObject({ code: "RESOURCE_EXHAUSTED", device: "claude" });
  });
});

describe("compact index", () => {
  it("thousands of canonical uuids (past the first table sizes) and other strings are found again, in chain order, uuids as written", () => {
    const index = new TranscriptIndexer().done();
    const uuids = Array.from({ length: 5000 }, (_, n) => (n % 500 === 7 ? `hand-made-${n}` : randomUUID()));
    uuids.forEach((uuid, n) => index.put(uuid, n === 0 ? undefined : uuids[n - 1], n % 2 ? "assistant" : "prompt", `msg_${n}`, n * 10, 9));
    expect(index.size).toBe(5000);
    expect(index.leaf).toBe(uuids[4999]);
    const chain = chainTo(index, index.leaf!);
    expect([...chain].map((id) => index.entry(id).uuid)).toEqual(uuids);
    expect(index.entry(chain[4321]!)).toEqual({ uuid: uuids[4321], kind: "assistant", offset: 43210, length: 9 });
    expect(index.idOf(randomUUID())).toBeUndefined();
    expect(new ConversationMessages(index, chain).count).toBe(5000);
  });
});

describe("page size", () => {
  it("a page ends before a message that would take it past 64 MiB, and the next page begins with it", { timeout: 60_000 }, async () => {
    // Six prompts of 15 MiB each (under the 16 MiB an entry is read whole): four fit in 64 MiB, a fifth would not.
    const big = (n: number): string => String(n) + "z".repeat(15 * 1024 * 1024);
    const lines: Line[] = [];
    let parent: string | null = null;
    for (let n = 0; n < 6; n++) {
      const uuid = randomUUID();
      lines.push(prompt(uuid, parent, big(n)));
      parent = uuid;
    }
    const home = await transcript(lines);
    const first = await read(home, { limit: 10 });
    expect(first!.messages.map((message) => message.text[0])).toEqual(["0", "1", "2", "3"]);
    const second = await read(home, { limit: 10, cursor: first!.nextCursor! });
    expect(second!.messages.map((message) => message.text[0])).toEqual(["4", "5"]);
    expect(second!.nextCursor).toBeUndefined();
  });
});
