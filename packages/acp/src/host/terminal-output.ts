/** Bytes per block of kept output. */
const BLOCK_BYTES = 16 * 1024;

/**
 * The last `limit` bytes of a terminal's output (stdout and stderr bytes, in arrival order), as
 * ACP's `terminal/output` reports it: truncated from the start, at a character boundary.
 *
 * Appending costs only the new bytes: they are copied into fixed blocks, and the blocks that fell
 * wholly out of the bound are dropped from the front. The text is decoded only when asked for.
 * Memory stays within `limit` plus one block, however much the command writes.
 */
export class TerminalOutput {
  readonly #limit: number;
  /** Kept bytes, oldest first: from {@link #start} in the first block, {@link #kept} bytes in all. */
  readonly #blocks: Buffer[] = [];
  #start = 0;
  #kept = 0;
  #total = 0;

  /** @param limit - bytes kept (UTF-8), a non-negative integer. */
  constructor(limit: number) {
    this.#limit = Math.max(0, Math.floor(limit));
  }

  /** Appends output bytes (a string is taken as UTF-8). */
  push(output: Buffer | string): void {
    const chunk = typeof output === "string" ? Buffer.from(output, "utf8") : output;
    if (chunk.length === 0) return;
    this.#total += chunk.length;
    const limit = this.#limit;
    if (limit === 0) return;
    const data = chunk.length > limit ? chunk.subarray(chunk.length - limit) : chunk;
    // Drop what the new bytes push out of the bound first: whole blocks from the front.
    const drop = this.#kept + data.length - limit;
    if (drop > 0) {
      this.#start += drop;
      this.#kept -= drop;
      while (this.#start >= BLOCK_BYTES) {
        this.#blocks.shift();
        this.#start -= BLOCK_BYTES;
      }
    }
    let written = 0;
    while (written < data.length) {
      const at = this.#start + this.#kept;
      const index = Math.floor(at / BLOCK_BYTES);
      if (index === this.#blocks.length) this.#blocks.push(Buffer.allocUnsafe(BLOCK_BYTES));
      const offset = at - index * BLOCK_BYTES;
      const n = Math.min(data.length - written, BLOCK_BYTES - offset);
      data.copy(this.#blocks[index]!, offset, written, written + n);
      written += n;
      this.#kept += n;
    }
  }

  /** The kept bytes decoded as UTF-8; when some were dropped, a character the bound cut is dropped too. */
  get text(): string {
    if (this.#kept === 0) return "";
    let bytes = Buffer.concat(this.#blocks).subarray(this.#start, this.#start + this.#kept);
    if (this.truncated) {
      // At most 3 continuation bytes of a character whose start fell out of the bound.
      let skip = 0;
      while (skip < 3 && skip < bytes.length && ((bytes[skip] ?? 0) & 0xc0) === 0x80) skip++;
      bytes = bytes.subarray(skip);
    }
    return bytes.toString("utf8");
  }

  /** Bytes written in all, kept or not. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Whether bytes were dropped: the output is only the last `limit` bytes. */
  get truncated(): boolean {
    return this.#total > this.#kept;
  }
}
