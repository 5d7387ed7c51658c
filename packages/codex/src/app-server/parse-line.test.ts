import { describe, expect, it } from "vitest";
import { DeltaLineReader, parseAppServerLine } from "./parse-line.js";

const delta = (
  d: string,
  extra: Record<string, unknown> = {},
  ids = { threadId: "019a0000-0000-7000-8000-000000000001", turnId: "019a-turn", itemId: "msg_1" },
) => JSON.stringify({ method: "item/agentMessage/delta", params: { ...ids, delta: d }, ...extra });

/** Deltas that exercise every escape JSON has, quotes, backslashes, control characters, non-BMP text and lone surrogates. */
const DELTAS = [
  "token1 ",
  "",
  'say "hi"',
  "back\\slash",
  "\\",
  '\\"',
  "tab\tnew\nline\r",
  "\u0000\u001f",
  "é ü ß",
  "😀 emoji",
  "\ud83d",
  "\udc00 lone",
  "}} ",
  '","delta":"x',
  "\u2028\u2029",
  "a".repeat(10_000),
];

describe("parseAppServerLine", () => {
  it("gives exactly what JSON.parse gives for delta lines, with or without emittedAtMs", () => {
    for (const d of DELTAS) {
      for (const extra of [{}, { emittedAtMs: 1796009019157 }, { emittedAtMs: 0 }]) {
        const line = delta(d, extra);
        expect(parseAppServerLine(line), line.slice(0, 120)).toEqual(JSON.parse(line));
      }
    }
  });

  it("hands anything off the exact shape to JSON.parse, so the value is still equal", () => {
    const lines = [
      delta("x", { emittedAtMs: 1.5 }),
      delta("x", { emittedAtMs: -1 }),
      delta("x", { emittedAtMs: 2 ** 60 }), // more digits than a plain integer below 2^53
      delta("x", { emittedAtMs: "soon" }),
      delta("x", { other: true }),
      delta("x", {}, { threadId: 'quo"te', turnId: "t", itemId: "i" }),
      delta("x", {}, { threadId: "t", turnId: "back\\slash", itemId: "i" }),
      JSON.stringify({ method: "item/agentMessage/delta", params: { itemId: "i", threadId: "t", turnId: "u", delta: "reordered" } }),
      JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: "t", turnId: "u", itemId: "i", delta: "d", extra: 1 } }),
      '{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i","delta":"spaced"} }',
      JSON.stringify({ method: "turn/completed", params: { threadId: "t", turn: { id: "u", status: "completed" } } }),
      JSON.stringify({ id: 3, result: { ok: true } }),
      "[1,2,3]",
      "42",
    ];
    for (const line of lines) expect(parseAppServerLine(line), line).toEqual(JSON.parse(line));
  });

  it("throws where JSON.parse throws: a truncated line, a raw control character, a bad escape", () => {
    const good = delta("hello");
    const bad = [
      good.slice(0, -1),
      good.slice(0, -3),
      good.replace("hello", "hel\u0001lo"),
      good.replace("hello", "hel\\qlo"),
      good.replace("msg_1", "msg\u0000_1"),
      good.replace("019a-turn", "019a\u001f-turn"),
      `${good}x`,
      "not json",
    ];
    for (const line of bad) {
      expect(() => JSON.parse(line), line).toThrow();
      expect(() => parseAppServerLine(line), line).toThrow();
    }
  });
});

describe("parseAppServerLine on lines that only look like a delta", () => {
  it("an id holding an escaped quote followed by what looks like the next key is not JSON, and is refused like JSON.parse refuses it", () => {
    const line = '{"method":"item/agentMessage/delta","params":{"threadId":"a\\","turnId":"x","turnId":"u","itemId":"i","delta":"d"}}';
    expect(() => JSON.parse(line)).toThrow();
    expect(() => parseAppServerLine(line)).toThrow();
  });

  it("consecutive lines with different ids each get their own", () => {
    const a = delta("one", {}, { threadId: "t1", turnId: "u1", itemId: "i1" });
    const b = delta("two", {}, { threadId: "t2", turnId: "u2", itemId: "i2" });
    expect([parseAppServerLine(a), parseAppServerLine(b), parseAppServerLine(a)]).toEqual([JSON.parse(a), JSON.parse(b), JSON.parse(a)]);
  });
});

describe("DeltaLineReader", () => {
  const ids = { threadId: "019a0000-0000-7000-8000-000000000001", turnId: "019a-turn", itemId: "msg_1" };

  /** What `JSON.parse` gives for the reader's params when it accepts `line`, else undefined. */
  function read(reader: DeltaLineReader, line: string): { itemId: string; delta: string } | undefined {
    return reader.read(line) ? { itemId: reader.itemId, delta: reader.delta } : undefined;
  }

  it("accepts a delta line of its thread and turn, with or without emittedAtMs, holding exactly what JSON.parse gives", () => {
    const reader = new DeltaLineReader(ids.threadId, ids.turnId);
    for (const d of DELTAS) {
      for (const extra of [{}, { emittedAtMs: 1796009019157 }, { emittedAtMs: 0 }]) {
        const line = delta(d, extra);
        const { params } = JSON.parse(line) as { params: { itemId: string; delta: string } };
        expect(read(reader, line), line.slice(0, 120)).toEqual({ itemId: params.itemId, delta: params.delta });
      }
    }
  });

  it("refuses a line of another thread or turn, another shape, or not JSON, leaving it to the caller", () => {
    const reader = new DeltaLineReader(ids.threadId, ids.turnId);
    const good = delta("hello");
    const refused = [
      delta("x", {}, { ...ids, threadId: "019a0000-0000-7000-8000-000000000002" }),
      delta("x", {}, { ...ids, turnId: "019a-turn-2" }),
      delta("x", {}, { ...ids, turnId: "019a-tur" }),
      delta("x", {}, { ...ids, itemId: 'quo"te' }),
      delta("x", {}, { ...ids, itemId: "back\\slash" }),
      delta("x", { emittedAtMs: 1.5 }),
      delta("x", { emittedAtMs: 2 ** 60 }),
      delta("x", { other: true }),
      JSON.stringify({ method: "item/agentMessage/delta", params: { ...ids, delta: "d", extra: 1 } }),
      JSON.stringify({
        method: "item/agentMessage/delta",
        params: { turnId: ids.turnId, threadId: ids.threadId, itemId: "i", delta: "r" },
      }),
      JSON.stringify({ method: "item/reasoning/textDelta", params: { ...ids, delta: "thinking" } }),
      `${good} `,
      good.slice(0, -1),
      good.replace("hello", "hel\u0001lo"),
      good.replace("hello", "hel\\qlo"),
      `${good}x`,
      "not json",
    ];
    for (const line of refused) expect(reader.read(line), line).toBe(false);
    expect(read(reader, good)).toEqual({ itemId: "msg_1", delta: "hello" });
  });

  it("consecutive lines of one item share one itemId string; a new item gets its own", () => {
    const reader = new DeltaLineReader(ids.threadId, ids.turnId);
    expect(reader.read(delta("a"))).toBe(true);
    const first = reader.itemId;
    expect(reader.read(delta("b"))).toBe(true);
    expect(reader.itemId).toBe(first);
    expect(read(reader, delta("c", {}, { ...ids, itemId: "msg_2" }))).toEqual({ itemId: "msg_2", delta: "c" });
  });

  it("reads every one-character change of a line of the item before as JSON.parse reads it, or refuses it", () => {
    // Short and long deltas (a loop or a search for raw control characters), plain and escaped.
    for (const text of ["token42 ", "x".repeat(40), 'q"uo\\te', "y".repeat(33) + "\n"]) {
      const line = delta(text);
      const replacements = ["\u0000", "\u001f", " ", '"', "\\", "}", "{", ",", ":", "0", "a", "\u00e9", "\ud83d"];
      for (let at = 0; at < line.length; at++) {
        for (const c of replacements) {
          const changed = line.slice(0, at) + c + line.slice(at + 1);
          const reader = new DeltaLineReader(ids.threadId, ids.turnId);
          expect(reader.read(line)).toBe(true); // the item before: the next line takes the same-item compare
          let expected: { itemId: string; delta: string } | undefined;
          try {
            const value = JSON.parse(changed) as {
              method?: unknown;
              params?: { threadId?: unknown; turnId?: unknown; itemId?: unknown; delta?: unknown };
            };
            const p = value.params;
            if (value.method === "item/agentMessage/delta" && p?.threadId === ids.threadId && p.turnId === ids.turnId)
              expected = { itemId: p.itemId as string, delta: p.delta as string };
          } catch {
            expected = undefined;
          }
          const got = read(reader, changed);
          if (got !== undefined) expect(got, JSON.stringify(changed)).toEqual(expected);
        }
      }
    }
  });

  it("accepts nothing when the thread or turn id would need escapes in JSON", () => {
    for (const [threadId, turnId] of [
      ['t"1', "u"],
      ["t", "u\\1"],
      ["t", "u\n"],
    ] as const) {
      const reader = new DeltaLineReader(threadId, turnId);
      expect(reader.read(delta("x", {}, { threadId, turnId, itemId: "i" })), threadId + turnId).toBe(false);
    }
  });
});
