/** Bytes of one block of kept raw output: 16 KiB. */
export const OUTPUT_BLOCK_BYTES = 16 * 1024;

/**
 * Blocks per slab: 32 MiB and one block. glibc serves an allocation above its mmap threshold with a
 * mapping of its own, but raises that threshold to the size of any mapped chunk freed, up to
 * 32 MiB on 64-bit systems; past that the same sizes come from the main heap, where buffers kept for
 * a whole run among short-lived allocations leave holes whose pages stay resident after the run. A
 * slab above 32 MiB is always a mapping of its own, whatever was freed before, its untouched pages
 * cost no memory, and it goes back to the system as a whole once no block of it is in use.
 */
const SLAB_BLOCKS = 2 * 1024 + 1;

/** One block handed out by {@link OutputBlockPool.acquire}: `bytes` is a view of {@link OUTPUT_BLOCK_BYTES}. */
export interface OutputBlock {
  readonly bytes: Buffer;
  /** Internal: the slab and index the block came from. */
  readonly slab: Slab;
  readonly index: number;
}

interface Slab {
  readonly memory: Buffer;
  /** Indexes of free blocks below {@link Slab.fresh}, most recently freed last (its pages are the likeliest to be resident). */
  readonly free: number[];
  /** Blocks from this index on were never handed out. */
  fresh: number;
  /** Blocks handed out and not released. */
  used: number;
}

/**
 * Fixed-size blocks for the bytes processes keep (the raw-output tails), carved from large slabs
 * shared by every process of this host: a slab is dropped (and its memory returned to the system
 * once collected) when its last block is released, so memory held for 100 concurrent runs does not
 * stay resident after them. A released block is handed out again before a fresh one.
 */
export class OutputBlockPool {
  readonly #slabs: Slab[] = [];

  /** Slabs alive (holding a block in use). */
  get slabs(): number {
    return this.#slabs.length;
  }

  /** Blocks handed out and not released, across slabs. */
  get blocksInUse(): number {
    let used = 0;
    for (const slab of this.#slabs) used += slab.used;
    return used;
  }

  /** A block of {@link OUTPUT_BLOCK_BYTES} (contents unspecified), from the oldest slab with room. */
  acquire(): OutputBlock {
    let slab = this.#slabs.find((s) => s.free.length > 0 || s.fresh < SLAB_BLOCKS);
    if (!slab) {
      slab = { memory: Buffer.allocUnsafeSlow(SLAB_BLOCKS * OUTPUT_BLOCK_BYTES), free: [], fresh: 0, used: 0 };
      this.#slabs.push(slab);
    }
    const index = slab.free.pop() ?? slab.fresh++;
    slab.used++;
    const start = index * OUTPUT_BLOCK_BYTES;
    return { bytes: slab.memory.subarray(start, start + OUTPUT_BLOCK_BYTES), slab, index };
  }

  /** Gives `block` back; a block must be released once, and not used after. */
  release(block: OutputBlock): void {
    const { slab } = block;
    slab.used--;
    if (slab.used > 0) {
      slab.free.push(block.index);
      return;
    }
    const at = this.#slabs.indexOf(slab);
    if (at >= 0) this.#slabs.splice(at, 1);
  }
}

/** The pool every raw-output tail of this process draws from. */
export const outputBlocks: OutputBlockPool = new OutputBlockPool();
