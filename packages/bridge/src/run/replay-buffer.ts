import type { Frame } from "../protocols/frame.js";

/** What a reader after `id` gets: the frames it may still have, and the ids it lost to eviction. */
export interface ReplaySlice {
  /** Frames with an id above the reader's, oldest first. */
  readonly frames: readonly Frame[];
  /** Ids the reader missed that are no longer buffered (`firstId..lastId`), when any. */
  readonly gap?: { readonly firstId: number; readonly lastId: number };
}

/** Emptied slots at the front of the array from which it is compacted, when they are also at least half of it. */
const COMPACT_AT = 64;

/**
 * The last frames of a run, bounded by count and by bytes; the oldest are evicted first (at least
 * one is kept). An evicted frame is released at once: the buffer never references more than
 * `maxBytes` of frame text, or one frame when that frame alone is larger.
 */
export class ReplayBuffer {
  readonly #maxFrames: number;
  readonly #maxBytes: number;
  /** Kept frames from {@link #start}; the slots before it are emptied (evicted). */
  #frames: (Frame | undefined)[] = [];
  #start = 0;
  #bytes = 0;
  #evictedUpTo = 0;

  constructor(maxFrames: number, maxBytes: number) {
    this.#maxFrames = maxFrames;
    this.#maxBytes = maxBytes;
  }

  /** Id of the newest frame, 0 when none was pushed. */
  get headId(): number {
    return this.#frames.length > this.#start ? this.#frames[this.#frames.length - 1]!.id : this.#evictedUpTo;
  }

  push(frame: Frame): void {
    this.#frames.push(frame);
    this.#bytes += Buffer.byteLength(frame.text);
    while (this.#frames.length - this.#start > 1 && (this.#frames.length - this.#start > this.#maxFrames || this.#bytes > this.#maxBytes)) {
      const evicted = this.#frames[this.#start]!;
      this.#frames[this.#start++] = undefined;
      this.#bytes -= Buffer.byteLength(evicted.text);
      this.#evictedUpTo = evicted.id;
    }
    if (this.#start >= COMPACT_AT && this.#start * 2 >= this.#frames.length) {
      this.#frames = this.#frames.slice(this.#start);
      this.#start = 0;
    }
  }

  /** Frames after `id` (0: from the beginning). */
  after(id: number): ReplaySlice {
    let index = this.#frames.length;
    while (index > this.#start && this.#frames[index - 1]!.id > id) index--;
    const frames = this.#frames.slice(index) as Frame[];
    if (id < this.#evictedUpTo) return { frames, gap: { firstId: id + 1, lastId: this.#evictedUpTo } };
    return { frames };
  }
}
