import { describe, expect, it } from "vitest";
import { LineTemplate } from "./line-template.js";

const TEXT = "\u2060t\u2060";
const ID = "\u2060i\u2060";
const SLOTS = [
  { marker: TEXT, escapable: true, own: true },
  { marker: ID, escapable: false },
];

function learn(value: { text: string; id: string; n: number }): LineTemplate | undefined {
  const line = JSON.stringify(value);
  return LineTemplate.learn(line, JSON.parse(line), { ...value, text: TEXT, id: ID }, SLOTS);
}

describe("LineTemplate", () => {
  it("reads each slot of a line of the learned shape as JSON.parse does, and refuses lines that differ elsewhere", () => {
    const shape = learn({ text: "seed", id: "a", n: 1 })!;
    for (const text of ["", "x", 'quo"te \\ é\n', "\ud83d", "long ".repeat(40)]) {
      const line = JSON.stringify({ text, id: "item-7", n: 1 });
      expect(shape.match(line), line).toBe(true);
      expect(shape.values).toEqual([text, "item-7"]);
    }
    for (const line of [
      JSON.stringify({ text: "x", id: "a", n: 2 }),
      JSON.stringify({ text: "x", id: 'q"', n: 1 }),
      JSON.stringify({ id: "a", text: "x", n: 1 }),
      '{"text":"x","id":"a","n":1} ',
      '{"text":"x\\q","id":"a","n":1}',
      '{"text":"x\u0001","id":"a","n":1}',
      '{"text":"x","id":"a","n":1',
    ])
      expect(shape.match(line), line).toBe(false);
  });

  it("reads with a template learned again from a shape seen before as with one learned alone, each keeping its own values", () => {
    const first = learn({ text: "seed", id: "a", n: 1 })!;
    const second = learn({ text: "other", id: "b", n: 1 })!;
    expect(second.match(JSON.stringify({ text: "two", id: "i2", n: 1 }))).toBe(true);
    expect(first.match(JSON.stringify({ text: "one", id: "i1", n: 1 }))).toBe(true);
    expect(second.values).toEqual(["two", "i2"]);
    expect(first.values).toEqual(["one", "i1"]);
    expect(first.match(JSON.stringify({ text: "x", id: "i1", n: 2 }))).toBe(false);
    // The same line with other slot options is another shape: an unkept id reads as "".
    const line = JSON.stringify({ text: "seed", id: "a", n: 1 });
    const unkept = LineTemplate.learn(line, JSON.parse(line), { text: TEXT, id: ID, n: 1 }, [
      SLOTS[0]!,
      { marker: ID, escapable: false, keep: false },
    ])!;
    expect(unkept.match(JSON.stringify({ text: "z", id: "q", n: 1 }))).toBe(true);
    expect(unkept.values).toEqual(["z", ""]);
    // More shapes than are kept compiled: each template still reads its own shape only.
    const many = Array.from({ length: 100 }, (_, n) => learn({ text: "seed", id: "a", n })!);
    for (const [n, shape] of many.entries()) {
      expect(shape.match(JSON.stringify({ text: `t${n}`, id: "c", n })), String(n)).toBe(true);
      expect(shape.values).toEqual([`t${n}`, "c"]);
      expect(shape.match(JSON.stringify({ text: "t", id: "c", n: n + 1 })), String(n)).toBe(false);
    }
    expect(first.match(JSON.stringify({ text: "again", id: "i3", n: 1 }))).toBe(true);
    expect(first.values).toEqual(["again", "i3"]);
  });

  it("finds each slot's value after an unkept one and after a text ending in escaped quotes and backslashes, as JSON.parse reads them", () => {
    const UUID = "\u2060u\u2060";
    const seed = { uuid: "u-0", text: "seed", id: "a", n: 1 };
    const line = JSON.stringify(seed);
    const shape = LineTemplate.learn(line, JSON.parse(line), { ...seed, uuid: UUID, text: TEXT, id: ID }, [
      { marker: UUID, escapable: false, keep: false },
      ...SLOTS,
    ])!;
    for (const text of ['say "hi"', "ends with \\", '\\"', '"', "", '","id":"not-the-id']) {
      for (const [uuid, id] of [
        ["", ""],
        ["uuid-" + "9".repeat(40), "id-1"],
      ] as const) {
        const next = JSON.stringify({ uuid, text, id, n: 1 });
        expect(shape.match(next), next).toBe(true);
        const parsed = JSON.parse(next) as typeof seed;
        expect(shape.values, next).toEqual(["", parsed.text, parsed.id]); // the unkept uuid reads as ""
      }
    }
  });

  it("compares the constant parts character for character, whatever characters they hold", () => {
    const constant = "a.b(c)$^|[x]{2}*+?/\\ \u00e9\u2028";
    const seed = { text: "seed", id: "a", n: constant };
    const line = JSON.stringify(seed);
    const shape = LineTemplate.learn(line, JSON.parse(line), { ...seed, text: TEXT, id: ID }, SLOTS)!;
    expect(shape.match(JSON.stringify({ ...seed, text: "y", id: "b" }))).toBe(true);
    expect(shape.values).toEqual(["y", "b"]);
    for (let i = 0; i < constant.length; i++) {
      const other = `${constant.slice(0, i)}Z${constant.slice(i + 1)}`;
      expect(shape.match(JSON.stringify({ ...seed, text: "y", n: other })), other).toBe(false);
    }
    expect(shape.match(JSON.stringify({ ...seed, text: "y", n: `${constant}x` }))).toBe(false);
    expect(shape.match(JSON.stringify({ ...seed, text: "y", n: constant.slice(1) }))).toBe(false);
  });

  it("reads only JSON's escapes in a text slot and refuses every other backslash", () => {
    const shape = learn({ text: "seed", id: "a", n: 1 })!;
    for (const escape of ['\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\uD83D", "\\uffFF"]) {
      const line = `{"text":"x${escape}y","id":"a","n":1}`;
      expect(shape.match(line), line).toBe(true);
      expect(shape.values[0]).toBe((JSON.parse(line) as { text: string }).text);
    }
    for (const escape of ["\\a", "\\u00e", "\\u00g0", "\\x41", "\\", "\\\u0001"]) {
      const line = `{"text":"x${escape}","id":"a","n":1}`;
      expect(() => JSON.parse(line), line).toThrow();
      expect(shape.match(line), line).toBe(false);
    }
  });

  it("learns only from a compact line whose markers each stand for one value", () => {
    expect(
      LineTemplate.learn('{"text": "x","id":"a","n":1}', { text: "x", id: "a", n: 1 }, { text: TEXT, id: ID, n: 1 }, SLOTS),
    ).toBeUndefined();
    expect(learn({ text: "x", id: "a", n: 1 })).toBeDefined();
    const line = JSON.stringify({ text: "x", id: "a", other: ID });
    expect(LineTemplate.learn(line, JSON.parse(line), { text: TEXT, id: ID, other: ID }, SLOTS)).toBeUndefined();
  });

  it("gives an `own` slot's long value as a string of its own, equal to the slice", () => {
    const shape = learn({ text: "seed", id: "a", n: 1 })!;
    const text = "a longer text than a short slice";
    const chunk = `${"x".repeat(1000)}\n${JSON.stringify({ text, id: "b", n: 1 })}\n`;
    const line = chunk.slice(1001, -1);
    expect(shape.match(line)).toBe(true);
    expect(shape.values[0]).toBe(text);
  });

  describe("with one slot (read by its position, no match array)", () => {
    const seed = { a: "x", params: { delta: "seed", id: "item-1", n: 2 }, z: [1, "y"] };
    const seedLine = JSON.stringify(seed);
    const shapeOf = (own: boolean) =>
      LineTemplate.learn(seedLine, seed, { ...seed, params: { ...seed.params, delta: TEXT } }, [{ marker: TEXT, escapable: true, own }])!;

    it("reads the slot as JSON.parse does, whatever its length and escapes", () => {
      for (const own of [false, true]) {
        const shape = shapeOf(own);
        for (const delta of ["", "x", 'quo"te \\ é\n', "\ud83d", "\u0000\u001f", '"}],"z":[1,"y"]}', "long ".repeat(40)]) {
          const line = JSON.stringify({ ...seed, params: { ...seed.params, delta } });
          expect(shape.match(line), line).toBe(true);
          expect(shape.values).toEqual([delta]);
        }
      }
    });

    it("refuses or reads as JSON.parse reads every one-character change of a line", () => {
      const shape = shapeOf(false);
      const line = JSON.stringify({ ...seed, params: { ...seed.params, delta: 'a "b" \\ c' } });
      let read = 0;
      for (let at = 0; at < line.length; at++) {
        for (const r of ['"', "\\", "x", "}", " ", ",", "1", "\u0001", ""]) {
          const changed = line.slice(0, at) + r + line.slice(at + 1);
          if (changed === line || !shape.match(changed)) continue;
          read++;
          const parsed = JSON.parse(changed) as typeof seed;
          expect({ ...parsed, params: { ...parsed.params, delta: "seed" } }, changed).toEqual(seed);
          expect(shape.values, changed).toEqual([parsed.params.delta]);
        }
      }
      expect(read).toBeGreaterThan(10);
    });
  });
});
