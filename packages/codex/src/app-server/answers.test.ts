import { describe, expect, it } from "vitest";
import { DriverError, ErrCode } from "@adaptor/errors";
import { answerObject, threadOpened, turnsPage, turnStarted } from "./answers.js";

/** The message of the DRIVER DriverError `read` throws, checking its code and op. */
function refusal(read: () => unknown, op: string): string {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(DriverError);
    expect(error).toMatchObject({ code: ErrCode.Driver, op, device: "codex" });
    return (error as Error).message;
  }
  throw new Error("not refused");
}

describe("codex app-server answers", () => {
  it("well-formed answers are read as they are (a page's missing nextCursor is null)", () => {
    const opened = { thread: { id: "t" }, model: "m", modelProvider: "p", approvalPolicy: "never" };
    expect(threadOpened("thread/start", opened)).toBe(opened);
    expect(turnStarted("turn/start", { turn: { id: "u" } })).toEqual({ turn: { id: "u" } });
    expect(turnsPage("thread/turns/list", { data: [{ id: "u" }] })).toEqual({ data: [{ id: "u" }], nextCursor: null });
    expect(turnsPage("thread/turns/list", { data: [], nextCursor: "c" })).toEqual({ data: [], nextCursor: "c" });
    expect(answerObject("config/read", { config: {} })).toEqual({ config: {} });
  });

  it("each malformed answer is a DRIVER DriverError naming the request and what is missing, quoting at most 200 characters of it", () => {
    expect(refusal(() => turnStarted("turn/start", {}), "turn/start")).toBe("[DRIVER] turn/start: codex (the answer has no turn.id: {})");
    expect(refusal(() => turnStarted("turn/start", { turn: { id: 7 } }), "turn/start")).toContain("has no turn.id");
    expect(refusal(() => threadOpened("thread/resume", { thread: null }), "thread/resume")).toContain("has no thread.id");
    expect(refusal(() => threadOpened("thread/fork", "t"), "thread/fork")).toBe(
      '[DRIVER] thread/fork: codex (the answer is not an object: "t")',
    );
    expect(refusal(() => turnsPage("thread/turns/list", { data: [{}] }), "thread/turns/list")).toContain("has a turn without its id");
    expect(refusal(() => turnsPage("thread/turns/list", { data: [], nextCursor: 3 }), "thread/turns/list")).toContain("nextCursor");
    expect(refusal(() => answerObject("config/read", []), "config/read")).toContain("is not an object: []");
    const long = refusal(() => turnStarted("turn/start", { text: "x".repeat(1000) }), "turn/start");
    expect(long).toContain(`${"x".repeat(190)}...)`);
    expect(long.length).toBeLessThan(300);
  });
});
