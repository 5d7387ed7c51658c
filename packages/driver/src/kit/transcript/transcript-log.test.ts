import { describe, expect, it } from "vitest";
import type { TranscriptItem } from "../../spi/response.js";
import { TranscriptLog } from "./transcript-log.js";

/** Adds `items` to a log the way a driver does: text-only items packed, the others pushed. */
function logOf(items: readonly TranscriptItem[]): TranscriptLog {
  const log = new TranscriptLog();
  for (const item of items) {
    if ((item.kind === "assistant" || item.kind === "thinking") && Object.keys(item).length === 2 && typeof item.text === "string")
      log.text(item.kind, item.text);
    else log.push({ ...item });
  }
  return log;
}

const TEXTS = ["", "a", "token7 ", 'quo"te \\ é\n', "\ud83d", "\ude00", "😀 emoji", "long text ".repeat(30)];

describe("TranscriptLog", () => {
  it("gives exactly the items added, in order, across packed runs, kind changes and other items", () => {
    const plain: TranscriptItem[] = [];
    for (let i = 0; i < 1_300; i++) {
      plain.push({ kind: i % 97 < 90 ? "assistant" : "thinking", text: TEXTS[i % TEXTS.length]! + String(i % 3 === 0 ? "" : i) });
      if (i % 211 === 5) plain.push({ kind: "tool-call", toolCallId: `c${i}`, toolName: "shell", input: { command: "ls" } });
      if (i % 211 === 6) plain.push({ kind: "tool-result", toolCallId: `c${i - 1}`, toolName: "shell", text: "a\n", isError: false });
    }
    const log = logOf(plain);
    expect(log.length).toBe(plain.length);
    const items = log.items();
    expect(items).toStrictEqual(plain);
    // Each text keeps its UTF-16 code units, lone surrogates included.
    expect(items.map((item) => item.text)).toEqual(plain.map((item) => item.text));
    expect(Object.isFrozen(items)).toBe(true);
    expect(items.every((item) => Object.isFrozen(item))).toBe(true);
  });

  it("packs a run early once its texts are long, and still gives each text whole", () => {
    const big = "x".repeat(300_000);
    const plain: TranscriptItem[] = Array.from({ length: 9 }, (_, i) => ({ kind: "assistant", text: `${big}${i}` }));
    expect(logOf(plain).items()).toStrictEqual(plain);
  });

  it("keeps the list once made and makes it again after another item is added", () => {
    const log = logOf([{ kind: "assistant", text: "one" }]);
    const first = log.items();
    expect(log.items()).toBe(first);
    log.text("assistant", "two");
    log.push({ kind: "tool-call", toolCallId: "c", toolName: "shell", input: {} });
    expect(log.items()).toStrictEqual([
      { kind: "assistant", text: "one" },
      { kind: "assistant", text: "two" },
      { kind: "tool-call", toolCallId: "c", toolName: "shell", input: {} },
    ]);
    expect(first).toStrictEqual([{ kind: "assistant", text: "one" }]);
  });

  it("is empty when nothing was added", () => {
    const log = new TranscriptLog();
    expect(log.length).toBe(0);
    expect(log.items()).toEqual([]);
  });
});
