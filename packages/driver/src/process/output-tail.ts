/**
 * The last `maxBytes` bytes of a byte stream plus the count of every byte seen. Memory stays within
 * `maxBytes` plus at most one chunk's slack, however much is written. Internal to the process plumbing.
 */
export class OutputTail {
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #kept = 0;
  #total = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes seen since construction or the last {@link take}. */
  get totalBytes(): number {
    return this.#total;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#total += chunk.length;
    if (this.#maxBytes === 0) return;
    if (chunk.length >= this.#maxBytes) {
      // Copy, so a huge chunk's backing memory is not kept alive by a small view.
      this.#chunks = [Buffer.from(chunk.subarray(chunk.length - this.#maxBytes))];
      this.#kept = this.#maxBytes;
      return;
    }
    this.#chunks.push(chunk);
    this.#kept += chunk.length;
    while (this.#kept - (this.#chunks[0]?.length ?? 0) >= this.#maxBytes) {
      this.#kept -= this.#chunks.shift()?.length ?? 0;
    }
  }

  /**
   * The kept tail decoded as UTF-8 (when bytes were dropped, a character the bound cut at the start
   * is dropped too), the count of bytes seen, and whether any were dropped. Does not reset.
   */
  peek(): { text: string; bytes: number; truncated: boolean } {
    let tail = Buffer.concat(this.#chunks, this.#kept);
    if (tail.length > this.#maxBytes) tail = tail.subarray(tail.length - this.#maxBytes);
    const truncated = this.#total > tail.length;
    if (truncated) {
      let start = 0;
      while (start < tail.length && start < 3 && ((tail[start] ?? 0) & 0xc0) === 0x80) start++; // continuation bytes
      tail = tail.subarray(start);
    }
    return { text: tail.toString("utf8"), bytes: this.#total, truncated };
  }

  /** {@link peek}, then starts over empty (nothing kept, count zero). */
  take(): { text: string; bytes: number; truncated: boolean } {
    const result = this.peek();
    this.#chunks = [];
    this.#kept = 0;
    this.#total = 0;
    return result;
  }
}
