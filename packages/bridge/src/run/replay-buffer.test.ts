import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { Frame } from "../protocols/frame.js";
import { ReplayBuffer } from "./replay-buffer.js";

const MIB = 1024 * 1024;

/** Frame text bytes still reachable after a full collection: what the buffer retains (the test holds only weak references). */
async function retainedBytes(refs: readonly WeakRef<Frame>[]): Promise<number> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  // A weak reference made in this job keeps its target alive until the job ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return refs.reduce((sum, ref) => sum + Buffer.byteLength(ref.deref()?.text ?? ""), 0);
}

/** Pushes `count` frames of `bytes` each, keeping only weak references to them. */
function pushFrames(buffer: ReplayBuffer, count: number, bytes: number, firstId = 1): WeakRef<Frame>[] {
  const refs: WeakRef<Frame>[] = [];
  for (let i = 0; i < count; i++) {
    const frame: Frame = { id: firstId + i, text: String(i % 10).repeat(bytes) };
    refs.push(new WeakRef(frame));
    buffer.push(frame);
  }
  return refs;
}

describe("ReplayBuffer", () => {
  it("after 20 MiB through a 4 MiB buffer it holds at most 4 MiB of frames: evicted frames are released at once", async () => {
    const buffer = new ReplayBuffer(1024, 4 * MIB);
    const refs = pushFrames(buffer, 40, MIB / 2);
    expect(await retainedBytes(refs)).toBeLessThanOrEqual(4 * MIB);
    const slice = buffer.after(0);
    expect(slice.frames.map((frame) => frame.id)).toEqual([33, 34, 35, 36, 37, 38, 39, 40]);
    expect(slice.gap).toEqual({ firstId: 1, lastId: 32 });
    expect(buffer.headId).toBe(40);
  });

  it("frames larger than the byte bound: only the newest one is held", async () => {
    const buffer = new ReplayBuffer(1024, 4 * MIB);
    const refs = pushFrames(buffer, 3, 7 * MIB);
    expect(await retainedBytes(refs)).toBe(7 * MIB);
    expect(buffer.after(0)).toEqual({ frames: [{ id: 3, text: "2".repeat(7 * MIB) }], gap: { firstId: 1, lastId: 2 } });
  });

  it("evicted by count: only the last maxFrames frames are held, across many compactions", async () => {
    const buffer = new ReplayBuffer(100, 4 * MIB);
    const refs = pushFrames(buffer, 5_000, 1_000);
    expect(await retainedBytes(refs)).toBe(100 * 1_000);
    const slice = buffer.after(4_950);
    expect(slice.frames.map((frame) => frame.id)).toEqual(Array.from({ length: 50 }, (_, i) => 4_951 + i));
    expect(slice.gap).toBeUndefined();
    expect(buffer.after(10).gap).toEqual({ firstId: 11, lastId: 4_900 });
    expect(buffer.after(10).frames).toHaveLength(100);
  });

  it("an empty buffer has head 0 and replays nothing", () => {
    const buffer = new ReplayBuffer(10, 100);
    expect(buffer.headId).toBe(0);
    expect(buffer.after(0)).toEqual({ frames: [] });
  });
});
