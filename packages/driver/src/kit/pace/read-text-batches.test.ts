import { randomUUID } from "node:crypto";
import { text as streamText } from "node:stream/consumers";
import { getHeapSnapshot } from "node:v8";
import { describe, expect, it } from "vitest";
import { readTextBatches } from "./read-text-batches.js";

/**
 * Whether a string beginning with `prefix` + `id` is on this process's heap (a heap snapshot
 * collects garbage first, and names each string by its first characters). The needle is made after
 * the snapshot, so that it is not itself on the heap.
 */
async function onHeap(prefix: string, id: string): Promise<boolean> {
  const snapshot = await streamText(getHeapSnapshot());
  return snapshot.includes(prefix + id);
}

/** Batches handed over one at a time: {@link push} adds one, {@link end} ends stdout. */
class Batches implements AsyncIterable<readonly string[]> {
  #queue: (readonly string[] | undefined)[] = [];
  #wake: (() => void) | undefined;
  returned = false;

  push(batch: readonly string[] | undefined): void {
    this.#queue.push(batch);
    this.#wake?.();
  }

  end(): void {
    this.push(undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<readonly string[]> {
    return {
      next: async () => {
        while (this.#queue.length === 0) await new Promise<void>((resolve) => (this.#wake = resolve));
        const batch = this.#queue.shift();
        return batch === undefined ? { done: true, value: undefined } : { done: false, value: batch };
      },
      return: () => {
        this.returned = true;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}

/** The lines of a decoded stdout chunk that begins with a marker line: slices of the chunk, as the process plumbing frames them. */
function chunkLines(id: string, lines: readonly string[]): string[] {
  const chunk = `{"note":"chunk-${id}"}\n${lines.join("\n")}\n`;
  return chunk.slice(0, -1).split("\n");
}

/** No sink: one microtask turn between two lines. */
const sink = undefined;

describe("readTextBatches", () => {
  it("hands every line of every batch to readLine in order, until stdout ends", async () => {
    const batches = new Batches();
    const read: string[] = [];
    const done = readTextBatches(batches, sink, (text) => {
      read.push(text);
      return text.startsWith("f");
    });
    batches.push(["f1", "x2", "f3"]);
    batches.push([]);
    batches.push(["x4"]);
    batches.end();
    await done;
    expect(read).toEqual(["f1", "x2", "f3", "x4"]);
  });

  it("keeps no line of a batch while it waits for the next, so the stdout chunk the lines were cut from can go while the run waits", async () => {
    const batches = new Batches();
    const id = randomUUID();
    let read = 0;
    let wake: (() => void) | undefined;
    const allRead = new Promise<void>((resolve) => (wake = resolve));
    const done = readTextBatches(batches, sink, (text) => {
      if (++read === 3) wake?.();
      return text.includes("frequent");
    });
    batches.push(chunkLines(id, [`{"type":"frequent","text":"${"x".repeat(40)}"}`, '{"type":"other"}']));
    await allRead;
    /^x$/.test("x"); // the engine keeps the last regular-expression subject until the next match
    expect(await onHeap("chunk-", id)).toBe(false);
    batches.end();
    await done;
  });

  it("returns the batches' iterator and rejects with the error when readLine throws", async () => {
    const batches = new Batches();
    const done = readTextBatches(batches, sink, () => {
      throw new Error("bad line");
    });
    batches.push(["a"]);
    await expect(done).rejects.toThrow("bad line");
    expect(batches.returned).toBe(true);
  });
});
