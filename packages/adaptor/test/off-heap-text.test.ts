import { describe, expect, it } from "vitest";
import { OffHeapText } from "../src/run/off-heap-text.js";

// The run record's text outside the JavaScript heap: what is read back is exactly what was appended.

/** Appends `pieces` to a new text and to a string, checking both agree at every `every`th piece and at the end. */
function appendAll(pieces: readonly string[], every = 500): { text: OffHeapText; appended: string } {
  const text = new OffHeapText();
  let appended = "";
  for (const [i, piece] of pieces.entries()) {
    text.append(piece);
    appended += piece;
    if (i % every === 0) expect(text.toString()).toBe(appended);
  }
  expect(text.length).toBe(appended.length);
  expect(text.toString()).toBe(appended);
  return { text, appended };
}

describe("OffHeapText", () => {
  it("reads back nothing before anything is appended, and ignores empty pieces", () => {
    const text = new OffHeapText();
    expect(text.toString()).toBe("");
    text.append("");
    expect([text.toString(), text.length]).toEqual(["", 0]);
  });

  it("a latin1 text of several blocks (3 MB, pieces of every length) reads back as appended", () => {
    const pieces = Array.from({ length: 6_000 }, (_, i) => `tök ${i} `.repeat(1 + (i % 113)) + "\u00ff\u0000");
    const { appended } = appendAll(pieces);
    expect(appended.length).toBeGreaterThan(3_000_000);
  });

  it("a text that turns wide after 1.5 MB of latin1 reads back as appended, before and after", () => {
    const pieces = [
      ...Array.from({ length: 1_500 }, (_, i) => "x".repeat(1_000 + (i % 7))),
      "— wide from here: é🙂",
      ...Array.from({ length: 1_500 }, (_, i) => (i % 3 === 0 ? "é🙂".repeat(i % 500) : "plain ".repeat(i % 200))),
    ];
    const { appended } = appendAll(pieces, 250);
    expect(appended.length).toBeGreaterThan(2_400_000);
  });

  it("surrogate pairs split between pieces and lone surrogates, across block boundaries, read back unchanged", () => {
    // Odd and even lengths, so that the split halves land on every side of the blocks' edges.
    const pieces: string[] = [];
    for (let i = 0; pieces.length < 4_500; i++) {
      const filler = "ab".repeat(i % 400) + (i % 2 === 0 ? "c" : "");
      pieces.push(filler + "\ud83d", "\ude42" + filler, i % 5 === 0 ? "\udc00 lone" : "\ud800");
    }
    const { appended } = appendAll(pieces);
    expect(appended.length).toBeGreaterThan(1_000_000);
    expect(appended).toContain("\ud800ab");
  });
});
