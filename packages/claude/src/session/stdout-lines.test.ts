import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { CliProcess } from "@adaptor/driver/process";
import { describe, expect, it } from "vitest";
import { StdoutLines } from "./stdout-lines.js";

/**
 * A process whose `textBatches()` hands over `batches` in order, then waits forever (a CLI that
 * went quiet, as one does while its turn waits for an approval). The iterator keeps no batch it
 * handed over.
 */
function processWith(batches: string[][]): CliProcess {
  const iterator: AsyncIterator<readonly string[]> = {
    next: () => {
      const batch = batches.shift();
      return batch ? Promise.resolve({ done: false, value: batch }) : new Promise(() => undefined);
    },
  };
  return { textBatches: () => ({ [Symbol.asyncIterator]: () => iterator }) } as unknown as CliProcess;
}

/** Whether the batch behind `ref` is still reachable after a full collection. */
async function reachable(ref: WeakRef<object>): Promise<boolean> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  // A weak reference made in this job keeps its target alive until the job ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return ref.deref() !== undefined;
}

/** Lines over one batch made here, and a weak reference to it: the test holds no other. */
function linesOverOneBatch(batch: string[]): { lines: StdoutLines; ref: WeakRef<string[]> } {
  return { lines: new StdoutLines(processWith([batch])), ref: new WeakRef(batch) };
}

describe("StdoutLines", () => {
  it("lets a batch go with its last line, so a turn waiting after it does not keep that output alive", async () => {
    const { lines, ref } = linesOverOneBatch(['{"type":"stream_event","n":1}', '{"type":"stream_event","n":2}']);
    expect(await lines.fill()).toBe(true);
    expect([lines.take(), lines.take(), lines.take()]).toEqual([
      '{"type":"stream_event","n":1}',
      '{"type":"stream_event","n":2}',
      undefined,
    ]);
    expect(await reachable(ref)).toBe(false);
  });

  it("clears each line it hands over from the batch, so a taken line (a slice of its stdout) is not kept while the rest is read", async () => {
    const batch = ["a", "b", "c"];
    const lines = new StdoutLines(processWith([batch]));
    expect(await lines.fill()).toBe(true);
    expect([lines.take(), lines.take()]).toEqual(["a", "b"]);
    expect(batch).toEqual([undefined, undefined, "c"]);
    lines.unread(["b"]);
    expect([lines.take(), lines.take(), lines.take()]).toEqual(["b", "c", undefined]);
  });

  it("keeps a batch with lines still to take", async () => {
    const { lines, ref } = linesOverOneBatch(["a", "b"]);
    expect(await lines.fill()).toBe(true);
    expect(lines.take()).toBe("a");
    expect(await reachable(ref)).toBe(true);
    expect([lines.take(), lines.take()]).toEqual(["b", undefined]);
  });

  it("gives every line once, in order, across batches, single-line batches and lines put back", async () => {
    const batches = [["1", "2", "3"], ["4"], ["5", "6"]];
    const lines = new StdoutLines(processWith(batches.map((batch) => [...batch])));
    const taken: string[] = [];
    const takeAll = async (count: number) => {
      for (let i = 0; i < count; i++) {
        let line = lines.take();
        while (line === undefined) {
          await lines.fill();
          line = lines.take();
        }
        taken.push(line);
      }
    };
    await takeAll(3);
    // The batch is used up: what is put back is all there is until the next batch.
    lines.unread(["2", "3"]);
    taken.length = 1;
    await takeAll(3);
    lines.unread(["4"]);
    taken.length = 3;
    await takeAll(3);
    expect(taken).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(lines.take()).toBeUndefined();
  });
});
