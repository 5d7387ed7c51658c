import { OUTPUT_BLOCK_BYTES, outputBlocks, type OutputBlock, type OutputBlockPool } from "./output-blocks.js";

/** Returns the blocks of a tail collected while still holding some (one that was never taken). */
const abandoned = new FinalizationRegistry<{ readonly pool: OutputBlockPool; readonly blocks: OutputBlock[] }>(({ pool, blocks }) => {
  for (const block of blocks.splice(0)) pool.release(block);
});

/**
 * The last `maxBytes` bytes of a byte stream plus the count of every byte seen. Memory stays within
 * `maxBytes` plus one block ({@link OUTPUT_BLOCK_BYTES}), however much is written. Internal to the
 * process plumbing.
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
  /** Blocks in stream order; `#start` is the index in the first of the oldest kept byte. */
  readonly #blocks: OutputBlock[] = [];
  #registered = false;
  #start = 0;
  #kept = 0;
  #total = 0;

  constructor(maxBytes: number, pool: OutputBlockPool = outputBlocks) {
    this.#maxBytes = maxBytes;
    this.#pool = pool;
  }

  /** Bytes seen since construction or the last {@link take}. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Blocks this tail holds now. */
  get blocks(): number {
    return this.#blocks.length;
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
        this.#pool.release(this.#blocks.shift()!);
        this.#start -= OUTPUT_BLOCK_BYTES;
      }
    }
    let written = 0;
    while (written < data.length) {
      const at = this.#start + this.#kept;
      const index = Math.floor(at / OUTPUT_BLOCK_BYTES);
      if (index === this.#blocks.length) this.#blocks.push(this.#acquire());
      const offset = at - index * OUTPUT_BLOCK_BYTES;
      const n = Math.min(data.length - written, OUTPUT_BLOCK_BYTES - offset);
      data.copy(this.#blocks[index]!.bytes, offset, written, written + n);
      written += n;
      this.#kept += n;
    }
  }

  /**
   * The kept tail decoded as UTF-8 (when bytes were dropped, a character the bound cut at the start
   * is dropped too), the count of bytes seen, and whether any were dropped. Does not reset.
   */
  peek(): { text: string; bytes: number; truncated: boolean } {
    let tail = this.#ordered();
    const truncated = this.#total > tail.length;
    if (truncated) {
      let start = 0;
      while (start < tail.length && start < 3 && ((tail[start] ?? 0) & 0xc0) === 0x80) start++; // continuation bytes
      tail = tail.subarray(start);
    }
    return { text: tail.toString("utf8"), bytes: this.#total, truncated };
  }

  /** {@link peek}, then starts over empty (nothing kept, count zero, the blocks given back). */
  take(): { text: string; bytes: number; truncated: boolean } {
    const result = this.peek();
    for (const block of this.#blocks.splice(0)) this.#pool.release(block);
    this.#start = 0;
    this.#kept = 0;
    this.#total = 0;
    return result;
  }

  #acquire(): OutputBlock {
    if (!this.#registered) {
      this.#registered = true;
      abandoned.register(this, { pool: this.#pool, blocks: this.#blocks });
    }
    return this.#pool.acquire();
  }

  /** The kept bytes, oldest first (a view of one block when they lie in one). */
  #ordered(): Buffer {
    if (this.#kept === 0) return Buffer.alloc(0);
    const end = this.#start + this.#kept;
    if (end <= OUTPUT_BLOCK_BYTES) return this.#blocks[0]!.bytes.subarray(this.#start, end);
    const parts: Buffer[] = [];
    for (let i = 0; i * OUTPUT_BLOCK_BYTES < end; i++) {
      const to = Math.min(OUTPUT_BLOCK_BYTES, end - i * OUTPUT_BLOCK_BYTES);
      parts.push(this.#blocks[i]!.bytes.subarray(i === 0 ? this.#start : 0, to));
    }
    return Buffer.concat(parts, this.#kept);
  }
}
