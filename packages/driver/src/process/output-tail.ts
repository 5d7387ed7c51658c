/** A byte of 0x80 or above among Latin-1 characters: the bytes are not plain ASCII. */
const NON_ASCII = /[\u0080-\u00ff]/;

/**
 * The last `maxBytes` bytes of a byte stream plus the count of every byte seen. Memory stays within
 * `maxBytes` plus at most one chunk's slack, however much is written. Internal to the process plumbing.
 *
 * The bytes are kept as Latin-1 strings (one character per byte, exact): copies in the JS heap, so a
 * long run does not pin the stream's read buffers, each a native allocation of up to 64 KiB that,
 * kept alive among short-lived ones, fragments the native heap and keeps its pages resident.
 */
export class OutputTail {
  readonly #maxBytes: number;
  #chunks: string[] = [];
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
      this.#chunks = [chunk.toString("latin1", chunk.length - this.#maxBytes)];
      this.#kept = this.#maxBytes;
      return;
    }
    this.#chunks.push(chunk.toString("latin1"));
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
    let bytes = this.#chunks.join("");
    if (bytes.length > this.#maxBytes) bytes = bytes.slice(bytes.length - this.#maxBytes);
    const truncated = this.#total > bytes.length;
    if (!NON_ASCII.test(bytes)) return { text: bytes, bytes: this.#total, truncated }; // ASCII: the bytes are the text
    let tail = Buffer.from(bytes, "latin1");
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
