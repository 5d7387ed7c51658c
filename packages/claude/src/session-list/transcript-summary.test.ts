import { describe, expect, it } from "vitest";
import type { FileEnds } from "@adaptor/driver/process";
import { readTranscriptEnds } from "./transcript-summary.js";

// The entry shapes are those claude 2.1.332 writes (test/claude/list-sessions.test.ts lists
// transcripts the real CLI made); here each rule of the reading on its own.

const ID = "9b389a2c-e3b6-4b00-9efc-e119bd4b5033";
const MODIFIED = new Date("2026-12-07T06:09:23.100Z");

function user(content: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: "user",
    message: { role: "user", content },
    timestamp: "2026-12-07T06:09:14.244Z",
    cwd: "/work/app",
    sessionId: ID,
    gitBranch: "main",
    ...extra,
  });
}

function ends(head: string, tail = "", size = Buffer.byteLength(head) + Buffer.byteLength(tail)): FileEnds {
  return { head: Buffer.from(head), tail: Buffer.from(tail), size, modified: MODIFIED };
}

describe("readTranscriptEnds", () => {
  it("reads cwd, branch, creation time and the first typed prompt from the head; the update time is the file's", () => {
    const reading = readTranscriptEnds(ID, ends(`${user("fix the bug")}\n`), undefined);
    expect(reading).toEqual({
      kind: "session",
      session: {
        sessionId: ID,
        cwd: "/work/app",
        title: "fix the bug",
        firstPrompt: "fix the bug",
        createdAt: new Date("2026-12-07T06:09:14.244Z"),
        updatedAt: MODIFIED,
        gitBranch: "main",
        bytes: Buffer.byteLength(`${user("fix the bug")}\n`),
      },
    });
  });

  it("the first prompt skips the CLI's own markup, meta entries and tool results", () => {
    const head = [
      user("<command-name>/rename</command-name>"),
      user("[Request interrupted by user]"),
      user("caveat", { isMeta: true }),
      user([{ type: "tool_result", tool_use_id: "t", content: "ok" }]),
      user([{ type: "text", text: "the real question" }]),
    ].join("\n");
    expect(readTranscriptEnds(ID, ends(`${head}\n`), undefined)).toMatchObject({ session: { firstPrompt: "the real question" } });
  });

  it("the title: the user's (/rename), else the CLI's, else the last prompt, else the summary, else the first prompt", () => {
    const line = (entry: Record<string, unknown>): string => JSON.stringify({ ...entry, sessionId: ID });
    const base = user("first");
    const all = [
      base,
      line({ type: "summary", summary: "a summary" }),
      line({ type: "last-prompt", lastPrompt: "latest" }),
      line({ type: "ai-title", aiTitle: "the CLI's title" }),
      line({ type: "custom-title", customTitle: "the user's title" }),
    ];
    for (let n = all.length; n >= 1; n--) {
      const expected = ["first", "a summary", "latest", "the CLI's title", "the user's title"][n - 1];
      expect(readTranscriptEnds(ID, ends(`${all.slice(0, n).join("\n")}\n`), undefined)).toMatchObject({ session: { title: expected } });
    }
  });

  it("the title file beside the transcript is the title when the last bytes hold no title entry; a title entry there wins over it, it wins over one in the head", () => {
    const line = (entry: Record<string, unknown>): string => JSON.stringify({ ...entry, sessionId: ID });
    const headTitle = `${user("first")}\n${line({ type: "custom-title", customTitle: "old, in the head" })}\n`;
    const filler = `cut line"}\n${line({ type: "last-prompt", lastPrompt: "latest" })}\n`;
    // A long transcript: the head holds the old title, the tail only a later prompt.
    const long = ends(headTitle, filler, 1_000_000);
    expect(readTranscriptEnds(ID, long, undefined)).toMatchObject({ session: { title: "old, in the head" } });
    expect(readTranscriptEnds(ID, long, undefined, "from the title file")).toMatchObject({ session: { title: "from the title file" } });
    const tailTitle = ends(headTitle, `cut line"}\n${line({ type: "custom-title", customTitle: "newest, in the tail" })}\n`, 1_000_000);
    expect(readTranscriptEnds(ID, tailTitle, undefined, "from the title file")).toMatchObject({
      session: { title: "newest, in the tail" },
    });
    // A transcript read whole: its own last title entry is the newest.
    expect(readTranscriptEnds(ID, ends(headTitle), undefined, "from the title file")).toMatchObject({
      session: { title: "old, in the head" },
    });
  });

  it("the tag is the last tag entry's; an empty one (a cleared tag) leaves none, even after an earlier tag", () => {
    const line = (entry: Record<string, unknown>): string => JSON.stringify({ ...entry, sessionId: ID });
    const read = (...lines: string[]) => readTranscriptEnds(ID, ends(`${[user("first"), ...lines].join("\n")}\n`), undefined);
    expect(read()).toMatchObject({ kind: "session", session: { sessionId: ID } });
    expect(read()).not.toHaveProperty("session.tag");
    expect(read(line({ type: "tag", tag: "review" }))).toMatchObject({ session: { tag: "review" } });
    expect(read(line({ type: "tag", tag: "review" }), line({ type: "tag", tag: "shipped" }))).toMatchObject({
      session: { tag: "shipped" },
    });
    expect(read(line({ type: "tag", tag: "review" }), line({ type: "tag", tag: "" }))).not.toHaveProperty("session.tag");
  });

  it("a line cut by the tail's start and a torn last line are not read; the tail's complete lines are", () => {
    const tail = `ted":"x"}\n${JSON.stringify({ type: "custom-title", customTitle: "from the tail", sessionId: ID })}\n{"type":"last-pro`;
    const reading = readTranscriptEnds(ID, ends(`${user("first")}\n{"type":"att`, tail, 10_000_000), undefined);
    expect(reading).toMatchObject({ kind: "session", session: { title: "from the tail", firstPrompt: "first", bytes: 10_000_000 } });
  });

  it("skips an empty file and one without a complete entry of a session, with the reason", () => {
    expect(readTranscriptEnds(ID, ends(""), undefined)).toEqual({ kind: "skipped", reason: "the transcript is empty" });
    expect(readTranscriptEnds(ID, ends('{"type":"queue-operation","sessionId":"9b38'), undefined)).toEqual({
      kind: "skipped",
      reason: "no complete entry of a Claude Code session in its 43 bytes",
    });
    expect(readTranscriptEnds(ID, ends("[1,2]\n{}\nnot json\n"), undefined)).toMatchObject({ kind: "skipped" });
  });

  it("ignores a subagent's transcript and a session of another working directory than the one asked for", () => {
    expect(readTranscriptEnds(ID, ends(`${user("sub", { isSidechain: true })}\n`), undefined)).toEqual({ kind: "ignored" });
    expect(readTranscriptEnds(ID, ends(`${user("x")}\n`), "/work/app-2")).toEqual({ kind: "ignored" });
    expect(readTranscriptEnds(ID, ends(`${user("x")}\n`), "/work/app")).toMatchObject({ kind: "session" });
  });

  it("cuts a pasted prompt to 500 characters", () => {
    const reading = readTranscriptEnds(ID, ends(`${user("y".repeat(2000))}\n`), undefined);
    expect(reading).toMatchObject({ session: { firstPrompt: `${"y".repeat(500)}…` } });
  });
});
