/**
 * Bytes of one block of kept raw output: 4 KiB, one page. A tail holds its last, partly written
 * block in memory even while its full blocks are spilled, so this is what each of many concurrent
 * runs keeps resident at the least.
 */
export const OUTPUT_BLOCK_BYTES = 4 * 1024;

/**
 * Blocks per slab: 32 MiB and one block. A slab must be a mapping of its own, never memory of the
 * main heap, where buffers kept for a whole run among short-lived allocations leave holes whose
 * pages stay resident after the run; it then goes back to the system as a whole once no block of
 * it is in use. A slab is a resizable `ArrayBuffer` (V8 reserves its maximum as address space of
 * its own and commits pages as it grows, see {@link newSlab}); where there is none, a plain
 * buffer of this size, above the 32 MiB up to which glibc raises its mmap threshold, is a
 * mapping of its own too.
 */
const SLAB_BLOCKS = 8 * 1024 + 1;

/** Bytes of one slab. */
const SLAB_BYTES = SLAB_BLOCKS * OUTPUT_BLOCK_BYTES;

/** A slab grows by this many blocks at a time (1 MiB, the default window of one run). */
const GROW_BLOCKS = 256;

/** One block handed out by {@link OutputBlockPool.acquire}: `bytes` is a view of {@link OUTPUT_BLOCK_BYTES}. */
export interface OutputBlock {
  readonly bytes: Buffer;
  /** Internal: the slab and index the block came from. */
  readonly slab: Slab;
  readonly index: number;
}

interface Slab {
  /** The slab's memory; resizable: its committed length, in whole blocks, grows as fresh blocks are handed out. */
  readonly memory: ArrayBuffer;
  /** Indexes of free blocks below {@link Slab.fresh}, most recently freed last (its pages are the likeliest to be resident). */
  readonly free: number[];
  /** Blocks from this index on were never handed out. */
  fresh: number;
  /** Blocks handed out and not released. */
  used: number;
  /** The block of each index handed out so far, kept for the next time it is handed out (its view made once). */
  readonly blocks: OutputBlock[];
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
      slab = { memory: newSlab(), free: [], fresh: 0, used: 0, blocks: [] };
      this.#slabs.push(slab);
    }
    slab.used++;
    const reused = slab.free.pop();
    if (reused !== undefined) return slab.blocks[reused]!;
    const index = slab.fresh++;
    const start = index * OUTPUT_BLOCK_BYTES;
    const memory = slab.memory;
    if (memory.byteLength < start + OUTPUT_BLOCK_BYTES) {
      (memory as ResizableArrayBuffer).resize(Math.min(SLAB_BYTES, start + GROW_BLOCKS * OUTPUT_BLOCK_BYTES));
    }
    // A view of fixed length: it stays valid as the slab grows (a slab never shrinks).
    const block: OutputBlock = { bytes: Buffer.from(memory, start, OUTPUT_BLOCK_BYTES), slab, index };
    slab.blocks[index] = block;
    return block;
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

/** `ArrayBuffer` with ES2024's resizable form (not in the ES2023 library types). */
interface ResizableArrayBuffer extends ArrayBuffer {
  readonly resizable: boolean;
  resize(byteLength: number): void;
}

/**
 * A slab's memory: a resizable `ArrayBuffer` of at most {@link SLAB_BYTES}, committed as fresh
 * blocks are handed out (V8 reserves the maximum as a mapping of its own with its page allocator,
 * never from the C heap). Unlike a fixed buffer, it does not count as external memory for V8's
 * collector: a 32 MiB buffer did, which with a run's own garbage brought the heap to its first
 * limit and cost a full collection in every long turn. Where `ArrayBuffer` is not resizable, a
 * fixed buffer of the whole slab.
 */
function newSlab(): ArrayBuffer {
  const memory = new (ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ResizableArrayBuffer)(0, {
    maxByteLength: SLAB_BYTES,
  });
  if (memory.resizable === true && typeof memory.resize === "function") return memory;
  return new ArrayBuffer(SLAB_BYTES);
}

/** The pool every raw-output tail of this process draws from. */
export const outputBlocks: OutputBlockPool = new OutputBlockPool();
