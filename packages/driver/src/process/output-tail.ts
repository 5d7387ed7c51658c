import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OUTPUT_BLOCK_BYTES, outputBlocks, type OutputBlock, type OutputBlockPool } from "./output-blocks.js";

/**
 * Default of {@link OutputTailOptions.spillAboveBytes}: 4 MiB of blocks in use across the pool.
 * One run's tail (1 MiB by default) stays in memory; many concurrent runs spill.
 */
export const DEFAULT_SPILL_ABOVE_BYTES = 4 * 1024 * 1024;

/** One block's bytes read back from a spill file; shared, as a tail decodes a block before reading the next. */
let spillReadBuffer: Buffer | undefined;

/** What a tail holds outside itself: its blocks and its spill file (closed and emptied when released). */
interface Held {
  readonly pool: OutputBlockPool;
  readonly blocks: OutputBlock[];
  fd: number | undefined;
}

/** Returns the blocks of a tail collected while still holding some (one that was never taken), and closes its spill file. */
const abandoned = new FinalizationRegistry<Held>((held) => {
  for (const block of held.blocks.splice(0)) held.pool.release(block);
  closeSpill(held);
});

function closeSpill(held: Held): void {
  if (held.fd === undefined) return;
  try {
    closeSync(held.fd);
  } catch {
    // already closed: nothing held
  }
  held.fd = undefined;
}

/** Options of an {@link OutputTail}. */
export interface OutputTailOptions {
  /** The pool its blocks come from; default the process-wide one. */
  readonly pool?: OutputBlockPool;
  /**
   * When the pool has more than this many bytes of blocks in use, a tail that is written to moves
   * its full blocks (all but the one being written) to a spill file; default
   * {@link DEFAULT_SPILL_ABOVE_BYTES}. 0 spills every full block.
   */
  readonly spillAboveBytes?: number;
}

/**
 * The last `maxBytes` bytes of a byte stream plus the count of every byte seen. Memory stays within
 * `maxBytes` plus one block ({@link OUTPUT_BLOCK_BYTES}), however much is written. Internal to the
 * process plumbing.
 *
 * While many tails are being written at once (the pool's blocks in use above `spillAboveBytes`), a
 * tail keeps only the block it is writing in memory and moves its full blocks to a spill file: a
 * temporary file in the system's temp folder, opened for this process only (mode 0600) and removed
 * from the folder as soon as it is opened, so nothing is left behind whatever happens; it is
 * written as a ring of `maxBytes` plus one block, read back by {@link peek} and closed (its space
 * freed) by {@link take} or when the tail is collected. What the tail gives is the same, spilled or
 * not. Should the file fail (no space), the tail keeps its blocks in memory.
 *
 * The bytes are copied into blocks of a shared {@link OutputBlockPool} (taken on demand, oldest
 * first, a block whose bytes all fell out of the bound given back before the next is taken), never
 * kept as the chunks pushed: a pipe's chunks are native read buffers of 64 KiB cut down to what was
 * read, and keeping them, or a buffer per run, among short-lived allocations fragments the native
 * heap, whose pages then stay resident after the run. {@link take} gives the blocks back; a tail
 * collected without it gives them back then.
 */
export class OutputTail {
  readonly #maxBytes: number;
  readonly #pool: OutputBlockPool;
  readonly #spillAbove: number;
  /** Slots of the spill file's ring, one block each: enough for every block of a full tail. */
  readonly #slots: number;
  /** Blocks in memory, in stream order, after the {@link #spilled} ones in the file. */
  readonly #blocks: OutputBlock[] = [];
  readonly #held: Held;
  /** The oldest kept blocks, in the spill file from slot {@link #spillHead} on (wrapping). */
  #spilled = 0;
  #spillHead = 0;
  #spillFailed = false;
  #registered = false;
  /** Index, in the first kept block (spilled or not), of the oldest kept byte. */
  #start = 0;
  #kept = 0;
  #total = 0;

  constructor(maxBytes: number, options: OutputTailOptions | OutputBlockPool = {}) {
    const { pool = outputBlocks, spillAboveBytes = DEFAULT_SPILL_ABOVE_BYTES } = "acquire" in options ? { pool: options } : options;
    this.#maxBytes = maxBytes;
    this.#pool = pool;
    this.#spillAbove = spillAboveBytes;
    this.#slots = Math.ceil(maxBytes / OUTPUT_BLOCK_BYTES) + 1;
    this.#held = { pool, blocks: this.#blocks, fd: undefined };
  }

  /** Bytes seen since construction or the last {@link take}. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Blocks this tail holds in memory now. */
  get blocks(): number {
    return this.#blocks.length;
  }

  /** Blocks this tail keeps in its spill file now. */
  get spilledBlocks(): number {
    return this.#spilled;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#total += chunk.length;
    const max = this.#maxBytes;
    if (max === 0) return;
    const data = chunk.length > max ? chunk.subarray(chunk.length - max) : chunk;
    // Drop what the new bytes push out of the bound first, so its blocks are reused for them.
    const drop = this.#kept + data.length - max;
    if (drop > 0) {
      this.#start += drop;
      this.#kept -= drop;
      while (this.#start >= OUTPUT_BLOCK_BYTES) {
        if (this.#spilled > 0) {
          this.#spilled--;
          this.#spillHead = (this.#spillHead + 1) % this.#slots;
        } else this.#pool.release(this.#blocks.shift()!);
        this.#start -= OUTPUT_BLOCK_BYTES;
      }
    }
    let written = 0;
    while (written < data.length) {
      const at = this.#start + this.#kept;
      const global = Math.floor(at / OUTPUT_BLOCK_BYTES);
      const index = global - this.#spilled; // spilled blocks are all full: the end is in memory
      if (index === this.#blocks.length) this.#blocks.push(this.#acquire());
      const offset = at - global * OUTPUT_BLOCK_BYTES;
      const n = Math.min(data.length - written, OUTPUT_BLOCK_BYTES - offset);
      data.copy(this.#blocks[index]!.bytes, offset, written, written + n);
      written += n;
      this.#kept += n;
    }
    if (this.#blocks.length > 1 && !this.#spillFailed && this.#pool.blocksInUse * OUTPUT_BLOCK_BYTES > this.#spillAbove) this.#spill();
  }

  /** Moves every full block (all but the last) to the spill file. */
  #spill(): void {
    const held = this.#held;
    try {
      if (held.fd === undefined) {
        const path = join(tmpdir(), `adaptor-raw-${process.pid}-${randomUUID()}`);
        held.fd = openSync(path, "wx+", 0o600);
        unlinkSync(path);
      }
      while (this.#blocks.length > 1) {
        const block = this.#blocks[0]!;
        const slot = (this.#spillHead + this.#spilled) % this.#slots;
        writeSync(held.fd, block.bytes, 0, OUTPUT_BLOCK_BYTES, slot * OUTPUT_BLOCK_BYTES);
        this.#blocks.shift();
        this.#pool.release(block);
        this.#spilled++;
      }
    } catch {
      this.#spillFailed = true; // keep the rest in memory, as without a file
    }
  }

  /**
   * The kept tail decoded as UTF-8 (when bytes were dropped, a character the bound cut at the start
   * is dropped too), the count of bytes seen, and whether any were dropped. Does not reset.
   */
  peek(): { text: string; bytes: number; truncated: boolean } {
    const truncated = this.#total > this.#kept;
    return { text: this.#text(truncated), bytes: this.#total, truncated };
  }

  /** {@link peek}, then starts over empty (nothing kept, count zero, the blocks given back). */
  take(): { text: string; bytes: number; truncated: boolean } {
    const result = this.peek();
    for (const block of this.#blocks.splice(0)) this.#pool.release(block);
    closeSpill(this.#held);
    this.#spilled = 0;
    this.#spillHead = 0;
    this.#spillFailed = false;
    this.#start = 0;
    this.#kept = 0;
    this.#total = 0;
    return result;
  }

  #acquire(): OutputBlock {
    if (!this.#registered) {
      this.#registered = true;
      abandoned.register(this, this.#held);
    }
    return this.#pool.acquire();
  }

  /**
   * The kept bytes decoded as UTF-8 block by block, with no copy of the whole tail as bytes (many
   * runs ending at once would each hold one): each block's text up to its last ASCII byte is one
   * piece of the string, the bytes after it go with the next block. A UTF-8 decoder starts afresh
   * at an ASCII byte whatever came before it (an unfinished sequence is one U+FFFD either way), so
   * the text is the same as decoding all the bytes at once. `truncated`: up to 3 leading
   * continuation bytes (a character the bound cut) are dropped first.
   */
  #text(truncated: boolean): string {
    if (this.#kept === 0) return "";
    const end = this.#start + this.#kept;
    let text = "";
    let carry: Buffer | undefined;
    let skip = truncated ? 3 : 0;
    for (let i = 0; i * OUTPUT_BLOCK_BYTES < end; i++) {
      const from = i === 0 ? this.#start : 0;
      const to = Math.min(OUTPUT_BLOCK_BYTES, end - i * OUTPUT_BLOCK_BYTES);
      let bytes = this.#block(i).subarray(from, to);
      if (carry !== undefined) bytes = Buffer.concat([carry, bytes]);
      carry = undefined;
      while (skip > 0 && bytes.length > 0) {
        if (((bytes[0] ?? 0) & 0xc0) !== 0x80) skip = 0;
        else {
          bytes = bytes.subarray(1);
          skip--;
        }
      }
      let cut = bytes.length;
      while (cut > 0 && (bytes[cut - 1] ?? 0) >= 0x80) cut--;
      if (cut > 0) text += bytes.toString("utf8", 0, cut);
      // A copy: a spilled block's bytes are read into a buffer the next block reuses.
      if (cut < bytes.length) carry = Buffer.from(bytes.subarray(cut));
    }
    if (carry !== undefined) text += carry.toString("utf8");
    return text;
  }

  /** The bytes of kept block `i` (read back from the spill file for a spilled one). */
  #block(i: number): Buffer {
    if (i >= this.#spilled) return this.#blocks[i - this.#spilled]!.bytes;
    const bytes = (spillReadBuffer ??= Buffer.allocUnsafe(OUTPUT_BLOCK_BYTES));
    const slot = (this.#spillHead + i) % this.#slots;
    let read = 0;
    while (read < OUTPUT_BLOCK_BYTES) {
      const n = readSync(this.#held.fd!, bytes, read, OUTPUT_BLOCK_BYTES - read, slot * OUTPUT_BLOCK_BYTES + read);
      if (n === 0) break;
      read += n;
    }
    return bytes;
  }
}
