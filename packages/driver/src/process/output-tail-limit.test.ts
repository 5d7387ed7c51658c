// The open-file limit behind the default maxKeptFiles is read once, by the first finished window
// that spilled (holds a file): a run whose output never spilled does not read it. Its own file, so
// that this module instance has not read it yet.
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { OutputBlockPool } from "./output-blocks.js";
import { OutputTail } from "./output-tail.js";

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return { ...actual, readFileSync: vi.fn(actual.readFileSync) };
});

const limitReads = () => vi.mocked(readFileSync).mock.calls.filter(([path]) => path === "/proc/self/limits").length;

const bytes = (count: number) => Buffer.alloc(count, "x");

describe("the default limit of kept spill files", () => {
  it("is read by the first finished window that spilled, once, and never by one that did not spill", () => {
    const plain = new OutputTail(1_000_000, { pool: new OutputBlockPool() });
    plain.push(bytes(70_000));
    const kept = plain.takeKept();
    expect(kept.output.text).toBe(bytes(70_000).toString());
    expect(limitReads()).toBe(0);

    for (let i = 0; i < 2; i++) {
      const spilling = new OutputTail(4_000_000, { pool: new OutputBlockPool(), spillAboveBytes: 0 });
      spilling.push(bytes(300_000));
      expect(spilling.spilledBlocks).toBeGreaterThan(0);
      const { output } = spilling.takeKept();
      expect(output.pending).toBe(true); // kept in its file: the limit left room
      expect(output.text).toBe(bytes(300_000).toString());
    }
    expect(limitReads()).toBe(1);
  });
});
