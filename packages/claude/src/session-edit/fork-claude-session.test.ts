import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidOptionError, findError } from "@adaptor/errors";
import { forkClaudeSession } from "./fork-claude-session.js";
import { readClaudeMessages } from "../session-messages/read-claude-messages.js";

// Forking a Claude Code transcript: where the cut falls for a message of several entries, the
// parent chain over left-out progress lines, the references remapped to the new uuids, and the
// derived title. The real CLI's transcripts are forked in test/claude/fork-session.test.ts.

const homes: string[] = [];
afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

const SESSION = "5b3c2f6e-2a57-4d8a-9d2e-0c6f6f0b9a11";
const u = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
let clock = Date.parse("2026-12-07T09:00:00.000Z");

type Line = Record<string, unknown>;

function entry(uuid: string, parentUuid: string | null, fields: Line): Line {
  clock += 1000;
  return { parentUuid, isSidechain: false, ...fields, uuid, timestamp: new Date(clock).toISOString(), sessionId: SESSION };
}
const prompt = (n: number, parent: number | null, text: string): Line =>
  entry(u(n), parent === null ? null : u(parent), { type: "user", message: { role: "user", content: [{ type: "text", text }] } });
const reply = (n: number, parent: number, id: string, content: unknown[]): Line =>
  entry(u(n), u(parent), { type: "assistant", message: { id, role: "assistant", content } });

async function home(lines: readonly Line[]): Promise<{ home: string; folder: string }> {
  const dir = await mkdtemp(join(tmpdir(), "claude-fork-"));
  homes.push(dir);
  const folder = join(dir, "projects", "-work-app");
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, `${SESSION}.jsonl`), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return { home: dir, folder };
}

async function forkLines(folder: string, forkId: string): Promise<Line[]> {
  return (await readFile(join(folder, `${forkId}.jsonl`), "utf8"))
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
}

const TRANSCRIPT: Line[] = [
  prompt(1, null, "list the files"),
  entry(u(2), u(1), { type: "progress", data: { type: "hook_progress" } }),
  reply(3, 2, "msg_a", [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }]),
  {
    ...entry(u(4), u(3), {
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.txt" }] },
    }),
    sourceToolAssistantUUID: u(3),
  },
  { type: "content-replacement", sessionId: SESSION, replacements: [{ toolUseId: "toolu_1", replacement: "a.txt" }] },
  reply(5, 4, "msg_b", [{ type: "text", text: "There is a.txt." }]),
  prompt(6, 5, "and now?"),
  reply(7, 6, "msg_c", [{ type: "text", text: "Nothing more." }]),
  { type: "file-history-snapshot", messageId: u(6), snapshot: {} },
];

describe("forkClaudeSession", () => {
  it("a reply's id ends the fork after its tool results; progress lines are left out and their children linked over them; references are remapped", async () => {
    const { home: dir, folder } = await home(TRANSCRIPT);
    const config = { configDir: dir };
    const shown = (await readClaudeMessages(config, { sessionId: SESSION, limit: 10 }))!.messages;
    expect(shown.map((m) => [m.role, m.id])).toEqual([
      ["user", u(1)],
      ["assistant", u(3)],
      ["assistant", u(5)],
      ["user", u(6)],
      ["assistant", u(7)],
    ]);
    const forkId = (await forkClaudeSession(config, { sessionId: SESSION, upToMessageId: u(3) }))!;
    const lines = await forkLines(folder, forkId);
    expect(lines.map((line) => line.type)).toEqual(["user", "assistant", "user", "content-replacement", "custom-title"]);
    const [first, call, result] = lines as [Line, Line, Line];
    expect(first.parentUuid).toBeNull();
    expect(call.parentUuid).toBe(first.uuid);
    expect(result.parentUuid).toBe(call.uuid);
    expect(result.sourceToolAssistantUUID).toBe(call.uuid);
    expect(lines.slice(0, 3).map((line) => line.forkedFrom)).toEqual(
      [u(1), u(3), u(4)].map((messageUuid) => ({ sessionId: SESSION, messageUuid })),
    );
    for (const line of lines) expect(line.sessionId).toBe(forkId);
    expect(new Set(lines.slice(0, 3).map((line) => line.uuid)).size).toBe(3);
    expect(lines.slice(0, 3).some((line) => [u(1), u(3), u(4)].includes(line.uuid as string))).toBe(false);
    expect(lines[3]).toMatchObject({ replacements: [{ toolUseId: "toolu_1", replacement: "a.txt" }] });
    expect(lines[4]).toEqual({ type: "custom-title", customTitle: "list the files (fork)", sessionId: forkId });
    // Keys keep the CLI's order (parentUuid first, uuid right before timestamp), as the readers expect.
    expect(Object.keys(call).slice(0, 2)).toEqual(["parentUuid", "isSidechain"]);
    expect(Object.keys(call).indexOf("timestamp")).toBe(Object.keys(call).indexOf("uuid") + 1);
    const forked = (await readClaudeMessages(config, { sessionId: forkId, limit: 10 }))!.messages;
    expect(forked.map((m) => [m.role, m.text, m.toolResults?.[0]?.output])).toEqual([
      ["user", "list the files", undefined],
      ["assistant", "", "a.txt"],
    ]);
  });

  it("the tool result's own uuid ends the fork there; the whole conversation is copied without a message id; the original is untouched", async () => {
    const { home: dir, folder } = await home(TRANSCRIPT);
    const original = await readFile(join(folder, `${SESSION}.jsonl`), "utf8");
    const config = { configDir: dir };
    const atResult = (await forkClaudeSession(config, { sessionId: SESSION, upToMessageId: u(4), title: "At the result" }))!;
    expect((await forkLines(folder, atResult)).map((line) => line.forkedFrom && (line.forkedFrom as Line).messageUuid)).toEqual([
      u(1),
      u(3),
      u(4),
      undefined,
      undefined,
    ]);
    const whole = (await forkClaudeSession(config, { sessionId: SESSION }))!;
    const wholeLines = await forkLines(folder, whole);
    expect(wholeLines.filter((line) => line.forkedFrom !== undefined).map((line) => (line.forkedFrom as Line).messageUuid)).toEqual([
      u(1),
      u(3),
      u(4),
      u(5),
      u(6),
      u(7),
    ]);
    expect(wholeLines.some((line) => line.type === "file-history-snapshot")).toBe(false);
    expect(await readFile(join(folder, `${SESSION}.jsonl`), "utf8")).toBe(original);
    expect((await readdir(folder)).sort()).toEqual([`${SESSION}.jsonl`, `${atResult}.jsonl`, `${whole}.jsonl`].sort());
  });

  it("a progress line's id ends the fork at the entry it hangs from: a branch the file holds between them is not copied (as the Claude Agent SDK forks it)", async () => {
    // The conversation was rewound after the first reply: a dead branch (u(3), u(4)), then a
    // progress line and the live branch, all hanging from the first reply.
    const { home: dir, folder } = await home([
      prompt(1, null, "first"),
      reply(2, 1, "msg_1", [{ type: "text", text: "one" }]),
      prompt(3, 2, "second, rewound"),
      reply(4, 3, "msg_2", [{ type: "text", text: "two, rewound" }]),
      entry(u(5), u(2), { type: "progress", data: { type: "hook_progress" } }),
      entry(u(6), u(5), { type: "progress", data: { type: "hook_progress" } }),
      prompt(7, 2, "second"),
      reply(8, 7, "msg_3", [{ type: "text", text: "two" }]),
    ]);
    const config = { configDir: dir };
    const forkId = (await forkClaudeSession(config, { sessionId: SESSION, upToMessageId: u(6) }))!;
    expect((await forkLines(folder, forkId)).map((line) => line.forkedFrom && (line.forkedFrom as Line).messageUuid)).toEqual([
      u(1),
      u(2),
      undefined,
    ]);
    expect((await readClaudeMessages(config, { sessionId: forkId, limit: 10 }))!.messages.map((m) => m.text)).toEqual(["first", "one"]);
  });

  it("as Claude Code forks: a prompt's turn attribution key is dropped, a model refusal's fallback is neutralized, a reply names the session its request was made in, the atis latch and tools used are carried", async () => {
    const { home: dir, folder } = await home([
      { ...prompt(1, null, "first"), turnAttributionKey: u(1) },
      entry(u(2), u(1), { type: "system", subtype: "model_refusal_fallback", fallbackModel: "claude-opus-4-1" }),
      reply(3, 2, "msg_1", [{ type: "text", text: "one" }]),
      { type: "atis-latch", sessionId: SESSION, atis: "a1" },
      { type: "tools-used", sessionId: SESSION, tools: ["Bash"] },
    ]);
    const forkId = (await forkClaudeSession({ configDir: dir }, { sessionId: SESSION }))!;
    const lines = await forkLines(folder, forkId);
    expect(lines.slice(3)).toEqual([
      { type: "atis-latch", sessionId: forkId, atis: "a1" },
      { type: "tools-used", sessionId: forkId, tools: ["Bash"] },
      { type: "custom-title", customTitle: "first (fork)", sessionId: forkId },
    ]);
    const [user, system, assistant] = lines as [Line, Line, Line];
    expect("turnAttributionKey" in user).toBe(false);
    expect(system).toMatchObject({ subtype: "model_refusal_fallback", neutralizedByFork: true });
    expect(assistant.requestSessionId).toBe(SESSION);
    expect("requestSessionId" in user).toBe(false);
  });

  it("a forged parentUuid loop ends: the fork is made, and a cut at a loop of progress lines is InvalidOptionError", async () => {
    const { home: dir } = await home([
      prompt(1, 2, "first"),
      reply(2, 1, "msg_1", [{ type: "text", text: "one" }]),
      entry(u(3), u(4), { type: "progress", data: {} }),
      entry(u(4), u(3), { type: "progress", data: {} }),
    ]);
    const config = { configDir: dir };
    expect(await forkClaudeSession(config, { sessionId: SESSION })).toEqual(expect.any(String));
    const err = await forkClaudeSession(config, { sessionId: SESSION, upToMessageId: u(4) }).catch((e: unknown) => e);
    expect(findError(err, InvalidOptionError)).toMatchObject({ field: "upToMessageId" });
  });

  it("an id that is no entry of the conversation (a reply's API message id is none) is InvalidOptionError; nothing is written", async () => {
    const { home: dir, folder } = await home(TRANSCRIPT);
    for (const upToMessageId of [u(99), "msg_a"]) {
      const err = await forkClaudeSession({ configDir: dir }, { sessionId: SESSION, upToMessageId }).catch((e: unknown) => e);
      expect(findError(err, InvalidOptionError)).toMatchObject({ subject: "forkSession arguments", field: "upToMessageId" });
    }
    expect(await readdir(folder)).toEqual([`${SESSION}.jsonl`]);
  });
});
