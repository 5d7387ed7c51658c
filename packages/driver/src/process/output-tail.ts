/**
 * First capacity of the ring, bytes (or `maxBytes` when smaller): above the C allocator's mmap
 * threshold (128 KiB by default), so the ring is a mapping of its own whose untouched pages cost no
 * memory and which goes back to the system when freed.
 */
const INITIAL_CAPACITY = 256 * 1024;

/**
 * The last `maxBytes` bytes of a byte stream plus the count of every byte seen. Memory stays within
 * `maxBytes`, however much is written. Internal to the process plumbing.
 *
 * The bytes are copied into a ring buffer of its own (allocated on the first byte, grown by doubling
 * up to `maxBytes`), never kept as the chunks pushed: a pipe's chunks are native read buffers of
 * 64 KiB cut down to what was read, and keeping them for a whole run among short-lived allocations
 * fragments the native heap, whose pages then stay resident after the run.
 */
export class OutputTail {
  readonly #maxBytes: number;
  #ring: Buffer | undefined;
  /** Index in the ring of the oldest kept byte. */
  #start = 0;
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
    const max = this.#maxBytes;
    if (max === 0) return;
    const data = chunk.length > max ? chunk.subarray(chunk.length - max) : chunk;
    const ring = this.#reserve(Math.min(max, this.#kept + data.length));
    const capacity = ring.length;
    // Write at the end of the kept bytes, wrapping; what does not fit overwrites the oldest.
    let at = (this.#start + this.#kept) % capacity;
    const first = Math.min(data.length, capacity - at);
    data.copy(ring, at, 0, first);
    if (first < data.length) data.copy(ring, 0, first);
    at = (at + data.length) % capacity;
    const kept = this.#kept + data.length;
    if (kept > capacity) {
      this.#start = at;
      this.#kept = capacity;
    } else {
      this.#kept = kept;
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

  /** {@link peek}, then starts over empty (nothing kept, count zero, the ring released). */
  take(): { text: string; bytes: number; truncated: boolean } {
    const result = this.peek();
    this.#ring = undefined;
    this.#start = 0;
    this.#kept = 0;
    this.#total = 0;
    return result;
  }

  /** The kept bytes, oldest first (a view of the ring when they do not wrap). */
  #ordered(): Buffer {
    const ring = this.#ring;
    if (!ring || this.#kept === 0) return Buffer.alloc(0);
    const end = this.#start + this.#kept;
    if (end <= ring.length) return ring.subarray(this.#start, end);
    return Buffer.concat([ring.subarray(this.#start), ring.subarray(0, end - ring.length)], this.#kept);
  }

  /** The ring, grown (kept bytes moved to its start) to hold at least `bytes`. */
  #reserve(bytes: number): Buffer {
    const ring = this.#ring;
    if (ring && ring.length >= bytes) return ring;
    let capacity = Math.min(this.#maxBytes, Math.max(ring?.length ?? 0, INITIAL_CAPACITY));
    while (capacity < bytes) capacity = Math.min(this.#maxBytes, capacity * 2);
    const grown = Buffer.allocUnsafeSlow(capacity);
    this.#ordered().copy(grown);
    this.#ring = grown;
    this.#start = 0;
    return grown;
  }
}
