import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { OUTPUT_BLOCK_BYTES, OutputBlockPool } from "./output-blocks.js";
import { keptOutputFiles, maxKeptFiles, OutputTail, type KeptOutput } from "./output-tail.js";

describe("OutputTail", () => {
  it("unbounded growth: 10,000 chunks keep only the last maxBytes, count every byte and say truncated", () => {
    const tail = new OutputTail(1000);
    for (let i = 0; i < 10_000; i++) tail.push(Buffer.from(`line ${String(i).padStart(5, "0")}\n`)); // 11 bytes each
    const out = tail.take();
    expect(out.bytes).toBe(110_000);
    expect(out.truncated).toBe(true);
    expect(Buffer.byteLength(out.text)).toBe(1000);
    expect(out.text.endsWith("line 09999\n")).toBe(true);
  });

  it("a single chunk larger than the bound keeps its last maxBytes", () => {
    const tail = new OutputTail(4);
    tail.push(Buffer.from("abcdefgh"));
    expect(tail.take()).toEqual({ text: "efgh", bytes: 8, truncated: true });
  });

  it("split UTF-8 at the bound: a character cut at the start of the tail is dropped, never a U+FFFD", () => {
    const tail = new OutputTail(5);
    tail.push(Buffer.from("x😀yz")); // 😀 is 4 bytes; the last 5 bytes start inside it
    const out = tail.take();
    expect(out).toEqual({ text: "yz", bytes: 7, truncated: true });
  });

  it("take() starts a new window: nothing from the previous window is kept or counted", () => {
    const tail = new OutputTail(100);
    tail.push(Buffer.from("turn one\n"));
    expect(tail.take()).toEqual({ text: "turn one\n", bytes: 9, truncated: false });
    tail.push(Buffer.from("turn two\n"));
    expect(tail.peek()).toEqual({ text: "turn two\n", bytes: 9, truncated: false });
    expect(tail.take()).toEqual({ text: "turn two\n", bytes: 9, truncated: false });
    expect(tail.take()).toEqual({ text: "", bytes: 0, truncated: false });
  });

  it("a multi-byte character split across two chunks comes back whole, and a stray byte as U+FFFD as a decoder would", () => {
    const tail = new OutputTail(100);
    const bytes = Buffer.from("é😀 done", "utf8");
    tail.push(bytes.subarray(0, 3)); // "é" and the first byte of 😀
    tail.push(Buffer.concat([bytes.subarray(3), Buffer.from([0xff, 0x0a])]));
    expect(tail.take()).toEqual({ text: "é😀 done\ufffd\n", bytes: bytes.length + 2, truncated: false });
  });

  it("chunks of every size, wrapping the ring again and again: the tail is exactly the last maxBytes bytes", () => {
    const tail = new OutputTail(1000);
    const all: Buffer[] = [];
    let seed = 7;
    for (let i = 0; i < 500; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const size = 1 + (seed % 1500); // below, at and above the bound
      const chunk = Buffer.alloc(size, String.fromCharCode(97 + (i % 26)));
      chunk.write(String(i), 0); // each chunk distinct
      all.push(chunk);
      tail.push(chunk);
      if (i % 50 === 0) expect(tail.peek().text).toBe(Buffer.concat(all).subarray(-1000).toString("latin1"));
    }
    const out = tail.take();
    expect(out.text).toBe(Buffer.concat(all).subarray(-1000).toString("latin1"));
    expect(out.bytes).toBe(Buffer.concat(all).length);
  });
});

describe("OutputTail over several blocks", () => {
  it("a bound of several blocks: the tail is exactly the last maxBytes bytes and the tail holds at most one block more than the bound", () => {
    const pool = new OutputBlockPool();
    const max = 3 * OUTPUT_BLOCK_BYTES + 1234;
    const tail = new OutputTail(max, pool);
    const all: Buffer[] = [];
    let seed = 11;
    for (let i = 0; i < 300; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const size = 1 + (seed % (2 * OUTPUT_BLOCK_BYTES)); // within a block, across blocks, across the bound
      const chunk = Buffer.alloc(size, String.fromCharCode(97 + (i % 26)));
      chunk.write(String(i), 0);
      all.push(chunk);
      tail.push(chunk);
      expect(tail.blocks).toBeLessThanOrEqual(Math.ceil(max / OUTPUT_BLOCK_BYTES) + 1);
      expect(pool.blocksInUse).toBe(tail.blocks);
      if (i % 30 === 0) expect(tail.peek().text).toBe(Buffer.concat(all).subarray(-max).toString("latin1"));
    }
    const out = tail.take();
    expect(out.text).toBe(Buffer.concat(all).subarray(-max).toString("latin1"));
    expect(out.bytes).toBe(Buffer.concat(all).length);
    expect(out.truncated).toBe(true);
  });

  it("take() gives every block back, and the pool drops its slab once no block is in use", () => {
    const pool = new OutputBlockPool();
    const a = new OutputTail(1024 * 1024, pool);
    const b = new OutputTail(1024 * 1024, pool);
    a.push(Buffer.alloc(5 * OUTPUT_BLOCK_BYTES + 1, "a"));
    b.push(Buffer.alloc(10, "b"));
    expect(a.blocks).toBe(6);
    expect(b.blocks).toBe(1);
    expect(pool.blocksInUse).toBe(7);
    expect(pool.slabs).toBe(1);
    expect(a.take().bytes).toBe(5 * OUTPUT_BLOCK_BYTES + 1);
    expect(pool.blocksInUse).toBe(1);
    expect(pool.slabs).toBe(1);
    expect(b.take()).toEqual({ text: "b".repeat(10), bytes: 10, truncated: false });
    expect(pool.blocksInUse).toBe(0);
    expect(pool.slabs).toBe(0);
  });

  it("a block given back is handed out again before a fresh one", () => {
    const pool = new OutputBlockPool();
    const first = pool.acquire();
    const second = pool.acquire();
    pool.release(first);
    const again = pool.acquire();
    expect(again.index).toBe(first.index);
    expect(again.bytes.byteOffset).toBe(first.bytes.byteOffset);
    expect(again.index).not.toBe(second.index);
    expect(again.bytes.length).toBe(OUTPUT_BLOCK_BYTES);
  });

  it("a block handed out again is the view of its own index's bytes, kept from its first hand-out, past the slab's growth", () => {
    const pool = new OutputBlockPool();
    const blocks = Array.from({ length: 300 }, () => pool.acquire()); // past the first growth step
    for (const at of [299, 7, 150]) pool.release(blocks[at]!);
    for (const at of [150, 7, 299]) {
      const again = pool.acquire(); // most recently released first
      expect(again.index).toBe(at);
      expect(again.bytes.buffer).toBe(blocks[0]!.bytes.buffer);
      expect(again.bytes.byteOffset).toBe(at * OUTPUT_BLOCK_BYTES);
      expect(again.bytes.length).toBe(OUTPUT_BLOCK_BYTES);
      again.bytes.fill(9);
      expect(blocks[at + 1 === 300 ? at - 1 : at + 1]!.bytes.includes(9)).toBe(false);
    }
  });

  it("a slab grows as fresh blocks are handed out, and every block keeps its own bytes across the growth steps", () => {
    const pool = new OutputBlockPool();
    const blocks = Array.from({ length: 300 }, (_, i) => {
      const block = pool.acquire();
      block.bytes.fill(i % 251);
      return block;
    });
    expect(pool.slabs).toBe(1);
    blocks.forEach((block, i) => {
      expect(block.bytes.length).toBe(OUTPUT_BLOCK_BYTES);
      expect(
        block.bytes.every((byte) => byte === i % 251),
        `block ${i}`,
      ).toBe(true);
    });
    for (const block of blocks) pool.release(block);
    expect(pool.slabs).toBe(0);
  });

  it("a slab is not external memory to V8's collector: its reserved 32 MiB do not count, so a run does not bring on a full collection", () => {
    const pool = new OutputBlockPool();
    const before = process.memoryUsage().arrayBuffers;
    const block = pool.acquire();
    block.bytes.fill(1);
    // A fixed 32 MiB buffer counted in full (and as external memory pushed V8's heap to its first limit).
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(4 * 1024 * 1024);
    pool.release(block);
  });

  it("a tail with no bound keeps nothing and takes no block, but counts every byte", () => {
    const pool = new OutputBlockPool();
    const tail = new OutputTail(0, pool);
    tail.push(Buffer.from("ignored"));
    expect(pool.blocksInUse).toBe(0);
    expect(tail.take()).toEqual({ text: "", bytes: 7, truncated: true });
  });

  it("by default one run's windows stay in memory (a full 1 MiB stdout window and 60 KiB of stderr kept twice), and the next process's output spills", () => {
    const pool = new OutputBlockPool();
    const MiB = 1024 * 1024;
    const [stdout, stderr, stderrRecent, next] = [
      new OutputTail(MiB, pool),
      new OutputTail(MiB, pool),
      new OutputTail(64 * 1024, pool),
      new OutputTail(MiB, pool),
    ];
    for (let i = 0; i < 24; i++) stdout.push(Buffer.alloc(64 * 1024, "o")); // 1.5 MiB: a full window
    for (let i = 0; i < 60; i++) {
      stderr.push(Buffer.alloc(1024, "e"));
      stderrRecent.push(Buffer.alloc(1024, "e"));
    }
    expect([stdout.blocks, stderr.blocks, stderrRecent.blocks]).toEqual([256, 15, 15]);
    expect(stdout.spilledBlocks + stderr.spilledBlocks + stderrRecent.spilledBlocks).toBe(0);
    next.push(Buffer.alloc(2 * OUTPUT_BLOCK_BYTES + 1, "n")); // 289 blocks in use: above the bound's 288
    expect([next.blocks, next.spilledBlocks]).toEqual([1, 2]);
    expect(next.take().text).toBe("n".repeat(2 * OUTPUT_BLOCK_BYTES + 1));
    for (const tail of [stdout, stderr, stderrRecent]) tail.take();
    expect(pool.blocksInUse).toBe(0);
  });

  it("spilled to its file, a tail gives exactly what the same tail gives in memory, and keeps one block in memory", () => {
    const spilling = new OutputTail(100_000, { pool: new OutputBlockPool(), spillAboveBytes: 0 });
    const inMemory = new OutputTail(100_000, { pool: new OutputBlockPool(), spillAboveBytes: Number.MAX_SAFE_INTEGER });
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let window = 0; window < 3; window++) {
      for (let i = 0; i < 400; i++) {
        const chunk = Buffer.from(`${"é😀x".repeat(random(900))}line ${window}-${i}\n`);
        spilling.push(chunk);
        inMemory.push(chunk);
        expect(spilling.blocks).toBeLessThanOrEqual(1);
        if (i % 97 === 0) expect(spilling.peek()).toEqual(inMemory.peek());
      }
      expect(spilling.spilledBlocks).toBeGreaterThan(1);
      expect(inMemory.spilledBlocks).toBe(0);
      const spilled = spilling.take();
      expect(spilled.truncated).toBe(true);
      expect(spilled).toEqual(inMemory.take());
      expect(spillFiles()).toEqual([]); // take() closed it
    }
    spilling.push(Buffer.from("short\n"));
    expect(spilling.take()).toEqual({ text: "short\n", bytes: 6, truncated: false });
  });

  it("exactly the bound, a byte under and a byte over, in whole blocks or not: spilled several blocks at a time across the ring's end, the tail equals the one kept in memory", () => {
    const B = OUTPUT_BLOCK_BYTES;
    let seed = 5;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (const maxBytes of [5 * B, 5 * B + 1, 5 * B - 1, 1]) {
      for (const total of [maxBytes - 1, maxBytes, maxBytes + 1, 7 * maxBytes + 3]) {
        // Spilling once more than three blocks are in use: a push then moves several at once.
        const spilling = new OutputTail(maxBytes, { pool: new OutputBlockPool(), spillAboveBytes: 3 * B });
        const inMemory = new OutputTail(maxBytes, { pool: new OutputBlockPool(), spillAboveBytes: Number.MAX_SAFE_INTEGER });
        const bytes = Buffer.from(Array.from({ length: total }, (_, i) => 32 + ((i * 7 + (i >> 12)) % 95)));
        for (let at = 0; at < total;) {
          const size = Math.min(total - at, 1 + random(random(3) === 0 ? 3 * B : 300));
          const chunk = bytes.subarray(at, at + size);
          spilling.push(chunk);
          inMemory.push(chunk);
          at += size;
        }
        const label = `max ${maxBytes}, ${total} bytes`;
        if (maxBytes > 4 * B && total > 4 * B) expect(spilling.spilledBlocks, label).toBeGreaterThan(1);
        const expected = {
          text: bytes.subarray(Math.max(0, total - maxBytes)).toString("latin1"),
          bytes: total,
          truncated: total > maxBytes,
        };
        expect(inMemory.take(), label).toEqual(expected);
        expect(spilling.peek(), label).toEqual(expected);
        const { output, ...counts } = spilling.takeKept();
        expect({ text: output.text, ...counts }, label).toEqual(expected);
      }
    }
    expect(spillFiles()).toEqual([]);
  });

  it("decoded block by block, the text is what decoding the kept bytes at once gives, for any bytes, in memory and spilled", () => {
    let seed = 11;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    // Pieces that straddle block ends: multi-byte characters, stray and cut sequences, runs without ASCII.
    const pieces = [
      Buffer.from("é"),
      Buffer.from("😀"),
      Buffer.from("€"),
      Buffer.from("\n"),
      Buffer.from("x"),
      Buffer.from([0xff]),
      Buffer.from([0xc3]),
      Buffer.from([0xe2, 0x82]),
      Buffer.from([0xf0, 0x9f, 0x98]),
      Buffer.from([0x80]),
      Buffer.from([0xbf, 0xbf]),
    ];
    for (const maxBytes of [1_000, 3 * OUTPUT_BLOCK_BYTES + 5, 200_000]) {
      for (const spillAboveBytes of [0, Number.MAX_SAFE_INTEGER]) {
        const tail = new OutputTail(maxBytes, { pool: new OutputBlockPool(), spillAboveBytes });
        for (let window = 0; window < 2; window++) {
          const all: Buffer[] = [];
          const chunks = 50 + random(300);
          for (let i = 0; i < chunks; i++) {
            const parts: Buffer[] = [];
            // Some chunks are long runs of non-ASCII bytes only, longer than a block.
            const length = random(5) === 0 ? OUTPUT_BLOCK_BYTES + random(OUTPUT_BLOCK_BYTES) : random(2_000);
            let size = 0;
            while (size < length) {
              const piece = random(5) === 0 && length > OUTPUT_BLOCK_BYTES ? pieces[random(3)]! : pieces[random(pieces.length)]!;
              parts.push(piece);
              size += piece.length;
            }
            const chunk = Buffer.concat(parts);
            all.push(chunk);
            tail.push(chunk);
          }
          const bytes = Buffer.concat(all);
          let kept = bytes.subarray(-maxBytes);
          const truncated = bytes.length > maxBytes;
          for (let skip = 0; truncated && skip < 3 && kept.length > 0 && ((kept[0] ?? 0) & 0xc0) === 0x80; skip++) kept = kept.subarray(1);
          const expected = { text: kept.toString("utf8"), bytes: bytes.length, truncated };
          expect(tail.peek(), `max ${maxBytes}, spill above ${spillAboveBytes}`).toEqual(expected);
          expect(tail.take()).toEqual(expected);
        }
      }
    }
  });
});

describe("OutputTail.takeKept: a finished window decoded when first read", () => {
  /** The same chunks, pseudo-random, multi-byte characters cut across chunks and blocks. */
  function chunks(seed: number, count: number): Buffer[] {
    const out: Buffer[] = [];
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let i = 0; i < count; i++) {
      const whole = Buffer.from(`${"é😀x".repeat(random(2_000))}line ${i}\n`);
      const cut = random(whole.length);
      out.push(whole.subarray(0, cut), whole.subarray(cut));
    }
    return out;
  }

  it("gives exactly what take() gives, in memory and spilled, truncated or not, and then holds nothing", () => {
    for (const maxBytes of [5_000, 3 * OUTPUT_BLOCK_BYTES + 7, 2_000_000]) {
      for (const spillAboveBytes of [0, Number.MAX_SAFE_INTEGER]) {
        const pool = new OutputBlockPool();
        const plain = new OutputTail(maxBytes, { pool: new OutputBlockPool(), spillAboveBytes });
        const kept = new OutputTail(maxBytes, { pool, spillAboveBytes });
        for (let window = 0; window < 2; window++) {
          for (const chunk of chunks(window + maxBytes, 60)) {
            plain.push(chunk);
            kept.push(chunk);
          }
          const expected = plain.take();
          expect(expected.truncated).toBe(maxBytes < 2_000_000); // cut by the smaller bounds, whole in the largest
          const { output, bytes, truncated } = kept.takeKept();
          expect(output.pending).toBe(true);
          expect({ text: output.text, bytes, truncated }, `max ${maxBytes}, spill above ${spillAboveBytes}`).toEqual(expected);
          expect(output.pending).toBe(false);
          expect(output.text).toBe(expected.text); // read twice, the same text
          expect(pool.blocksInUse).toBe(0);
        }
      }
    }
  });

  it("a window that spilled keeps its output in its file and no block until read; reading it closes the file", () => {
    const pool = new OutputBlockPool();
    const tail = new OutputTail(4_000_000, { pool, spillAboveBytes: 0 });
    const all = chunks(3, 200);
    for (const chunk of all) tail.push(chunk);
    expect(tail.spilledBlocks).toBeGreaterThan(1);
    const files = keptOutputFiles();
    const { output } = tail.takeKept();
    expect(pool.blocksInUse).toBe(0); // the last block went to the file too
    expect(spillFiles()).toHaveLength(1);
    expect(keptOutputFiles()).toBe(files + 1);
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith("adaptor-raw-"))).toEqual([]); // no path on disk
    expect(output.text).toBe(Buffer.concat(all).toString("utf8"));
    expect(spillFiles()).toEqual([]);
    expect(keptOutputFiles()).toBe(files);
  });

  it("a kept output collected unread closes its file", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const files = keptOutputFiles();
    (() => {
      const tail = new OutputTail(1_000_000, { pool: new OutputBlockPool(), spillAboveBytes: 0 });
      for (const chunk of chunks(5, 100)) tail.push(chunk);
      let output: KeptOutput | undefined = tail.takeKept().output;
      expect(output.pending).toBe(true);
      expect(spillFiles()).toHaveLength(1);
      output = undefined;
      return output;
    })();
    // The registry's callback runs on a later task once the output was collected.
    for (let i = 0; i < 200 && spillFiles().length > 0; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(spillFiles()).toEqual([]);
    expect(keptOutputFiles()).toBe(files);
  });

  it("by default at most a quarter of the process's soft open-file limit of finished windows keep a file", () => {
    const soft = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "latin1"))![1]!;
    expect(maxKeptFiles()).toBe(Math.max(16, Math.floor(Number(soft) / 4)));
    expect(maxKeptFiles()).toBe(maxKeptFiles());
  });

  it("past maxKeptFiles a finished window is decoded at once and holds no file", () => {
    const outputs: KeptOutput[] = [];
    const texts: string[] = [];
    const base = keptOutputFiles();
    for (let i = 0; i < 3; i++) {
      const tail = new OutputTail(4_000_000, { pool: new OutputBlockPool(), spillAboveBytes: 0, maxKeptFiles: base + 2 });
      const all = chunks(20 + i, 50);
      for (const chunk of all) tail.push(chunk);
      texts.push(Buffer.concat(all).toString("utf8"));
      outputs.push(tail.takeKept().output);
    }
    expect(outputs.map((o) => o.pending)).toEqual([true, true, false]);
    expect(spillFiles()).toHaveLength(2);
    expect(outputs.map((o) => o.text)).toEqual(texts);
    expect(spillFiles()).toEqual([]);
  });

  it("a window that never spilled, taken while the host's tails are not spilling, stays in its blocks until read", () => {
    const pool = new OutputBlockPool();
    const tail = new OutputTail(4_000_000, { pool, spillAboveBytes: Number.MAX_SAFE_INTEGER });
    const all = chunks(9, 30);
    for (const chunk of all) tail.push(chunk);
    const inUse = pool.blocksInUse;
    const { output } = tail.takeKept();
    expect(spillFiles()).toEqual([]);
    expect(pool.blocksInUse).toBe(inUse);
    expect(output.text).toBe(Buffer.concat(all).toString("utf8"));
    expect(pool.blocksInUse).toBe(0);
    // Nor is a file opened for a window that never spilled when the host does (a driver may only be dropping it).
    const small = new OutputTail(4_000_000, { pool, spillAboveBytes: 0 });
    small.push(Buffer.from("between turns\n"));
    const dropped = small.takeKept().output;
    expect(spillFiles()).toEqual([]);
    expect(pool.blocksInUse).toBe(1);
    expect(dropped.text).toBe("between turns\n");
  });
});

/** Spill files this process holds open (removed from the temp folder at once, so shown as deleted). */
function spillFiles(): string[] {
  const open: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.includes("adaptor-raw-")) open.push(target);
    } catch {
      // closed while listing
    }
  }
  return open;
}
