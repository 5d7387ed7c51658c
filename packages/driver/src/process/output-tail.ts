import { randomUUID } from "node:crypto";
import { closeSync, openSync, readFileSync, readSync, unlinkSync, writeSync, writevSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OUTPUT_BLOCK_BYTES, outputBlocks, type OutputBlock, type OutputBlockPool } from "./output-blocks.js";

/**
 * Default of {@link OutputTailOptions.spillAboveBytes}: 1 MiB and 128 KiB of blocks in use across
 * the pool. One run's windows (stdout's 1 MiB by default and one block more, and up to 60 KiB of
 * stderr, kept twice: in its window and in its recent tail) stay in memory; many concurrent runs
 * spill. The pool's pages stay resident up to the most blocks it ever had in use, and the first of
 * many concurrent runs reach this bound before any spills, so it is also about what stays resident.
 */
export const DEFAULT_SPILL_ABOVE_BYTES = 1024 * 1024 + 128 * 1024;

/** One block's bytes read back from a spill file; shared, as a tail decodes a block before reading the next. */
let spillReadBuffer: Buffer | undefined;

/**
 * The kept bytes of one window, held outside the tail or the {@link KeptOutput} that owns them: its
 * blocks in memory and its spill file, a ring of `slots` blocks. Given back (blocks released, file
 * closed) by {@link releaseStore}.
 */
interface Store {
  readonly pool: OutputBlockPool;
  /** Slots of the spill file's ring, one block each: enough for every block of a full tail. */
  readonly slots: number;
  /** Blocks in memory, in stream order, after the {@link spilled} ones in the file. */
  readonly blocks: OutputBlock[];
  fd: number | undefined;
  /** The oldest kept blocks, in the spill file from slot {@link spillHead} on (wrapping). */
  spilled: number;
  spillHead: number;
  /** Index, in the first kept block (spilled or not), of the oldest kept byte. */
  start: number;
  kept: number;
  /** Whether its file counts in {@link keptFiles} (it belongs to a finished window). */
  counted: boolean;
}

/** Stores of finished windows ({@link KeptOutput}) holding a spill file open now. */
let keptFiles = 0;

/** {@link maxKeptFiles}, once read. */
let maxKept: number | undefined;

/**
 * At most this many finished windows keep their output in a spill file until read; past it a
 * finished window is decoded at once. A quarter of the process's open-file limit (the soft
 * `RLIMIT_NOFILE` from `/proc/self/limits`), else 256: a host that keeps many Results unread
 * still has descriptors left for its pipes. Read when first needed (the end of a run's output
 * window), not when the SDK is loaded, then kept.
 */
export function maxKeptFiles(): number {
  return (maxKept ??= readMaxKeptFiles());
}

function readMaxKeptFiles(): number {
  try {
    const soft = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "latin1"))?.[1];
    if (soft !== undefined) return Math.max(16, Math.floor(Number(soft) / 4));
  } catch {
    // no /proc: the default
  }
  return 256;
}

/** Finished windows holding a spill file open now (tests and diagnostics). */
export function keptOutputFiles(): number {
  return keptFiles;
}

/** Gives back the blocks and closes the spill file of a store collected while still holding some. */
const abandoned = new FinalizationRegistry<Store>((store) => releaseStore(store));

function newStore(pool: OutputBlockPool, slots: number): Store {
  return { pool, slots, blocks: [], fd: undefined, spilled: 0, spillHead: 0, start: 0, kept: 0, counted: false };
}

/** Releases `store`'s blocks and closes its spill file; it then keeps nothing. */
function releaseStore(store: Store): void {
  for (const block of store.blocks.splice(0)) store.pool.release(block);
  if (store.fd !== undefined) {
    try {
      closeSync(store.fd);
    } catch {
      // already closed: nothing held
    }
    store.fd = undefined;
  }
  if (store.counted) keptFiles--;
  store.counted = false;
  store.spilled = 0;
  store.spillHead = 0;
  store.start = 0;
  store.kept = 0;
}

/**
 * Moves the blocks of `store` to its spill file (opened on first use: a temporary file, mode 0600,
 * removed from its folder at once), all of them or all but the last (the one being written).
 * @returns false when the file failed (no space, no descriptor left): the rest stays in memory.
 */
function spill(store: Store, all: boolean): boolean {
  try {
    if (store.fd === undefined) {
      const path = join(tmpdir(), `adaptor-raw-${process.pid}-${randomUUID()}`);
      store.fd = openSync(path, "wx+", 0o600);
      unlinkSync(path);
    }
    while (store.blocks.length > (all ? 0 : 1)) {
      // The blocks going to consecutive slots (up to the ring's end) in one write.
      const slot = (store.spillHead + store.spilled) % store.slots;
      const count = Math.min(store.blocks.length - (all ? 0 : 1), store.slots - slot);
      const moving = store.blocks.slice(0, count);
      writeBlocks(store.fd, moving, slot * OUTPUT_BLOCK_BYTES);
      store.blocks.splice(0, count);
      for (const block of moving) store.pool.release(block);
      store.spilled += count;
    }
    return true;
  } catch {
    return false;
  }
}

/** Writes `blocks` whole, one after another, at `position` of `fd`: one gathered write, resumed if cut short. */
function writeBlocks(fd: number, blocks: readonly OutputBlock[], position: number): void {
  let written = writevSync(
    fd,
    blocks.map((block) => block.bytes),
    position,
  );
  const total = blocks.length * OUTPUT_BLOCK_BYTES;
  while (written < total) {
    const block = blocks[Math.floor(written / OUTPUT_BLOCK_BYTES)]!;
    const from = written % OUTPUT_BLOCK_BYTES;
    written += writeSync(fd, block.bytes, from, OUTPUT_BLOCK_BYTES - from, position + written);
  }
}

/** The bytes of kept block `i` of `store` (read back from the spill file for a spilled one). */
function blockOf(store: Store, i: number): Buffer {
  if (i >= store.spilled) return store.blocks[i - store.spilled]!.bytes;
  const bytes = (spillReadBuffer ??= Buffer.allocUnsafe(OUTPUT_BLOCK_BYTES));
  const slot = (store.spillHead + i) % store.slots;
  let read = 0;
  while (read < OUTPUT_BLOCK_BYTES) {
    const n = readSync(store.fd!, bytes, read, OUTPUT_BLOCK_BYTES - read, slot * OUTPUT_BLOCK_BYTES + read);
    if (n === 0) break;
    read += n;
  }
  return bytes;
}

/**
 * The kept bytes of `store` decoded as UTF-8 block by block, with no copy of the whole tail as
 * bytes (many runs ending at once would each hold one): each block's text up to its last ASCII
 * byte is one piece of the string, the bytes after it go with the next block. A UTF-8 decoder
 * starts afresh at an ASCII byte whatever came before it (an unfinished sequence is one U+FFFD
 * either way), so the text is the same as decoding all the bytes at once. `truncated`: up to 3
 * leading continuation bytes (a character the bound cut) are dropped first.
 */
function decode(store: Store, truncated: boolean): string {
  if (store.kept === 0) return "";
  const end = store.start + store.kept;
  let text = "";
  let carry: Buffer | undefined;
  let skip = truncated ? 3 : 0;
  for (let i = 0; i * OUTPUT_BLOCK_BYTES < end; i++) {
    const from = i === 0 ? store.start : 0;
    const to = Math.min(OUTPUT_BLOCK_BYTES, end - i * OUTPUT_BLOCK_BYTES);
    let bytes = blockOf(store, i).subarray(from, to);
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

/**
 * The kept output of a finished window ({@link OutputTail.takeKept}), decoded when {@link text} is
 * first read. Until then its bytes stay where the tail kept them: in its spill file (one open
 * descriptor, no memory) when the host's tails were spilling or the window had spilled, else in
 * its blocks. Reading {@link text} decodes them once and gives the file and the blocks back; an
 * output collected unread gives them back then.
 */
export class KeptOutput {
  #store: Store | undefined;
  #text: string | undefined;
  readonly #truncated: boolean;
  /** What the decoded text still goes through before it is kept ({@link transformText}). */
  #transform: ((text: string, truncated: boolean) => string) | undefined;
  #transformed = false;

  /**
   * @internal Made by {@link OutputTail.takeKept}.
   * @param room - whether one more finished window may hold a spill file.
   */
  constructor(store: Store, truncated: boolean, room: boolean) {
    this.#truncated = truncated;
    if (store.kept === 0) {
      releaseStore(store);
      this.#text = "";
      return;
    }
    if (store.fd !== undefined && !room) {
      // Too many finished windows hold a file already: this one is decoded now.
      this.#text = decode(store, truncated);
      releaseStore(store);
      return;
    }
    this.#store = store;
    if (store.fd !== undefined) {
      store.counted = true;
      keptFiles++;
    }
    abandoned.register(this, store, store);
  }

  /**
   * The kept bytes decoded as UTF-8 (a character the bound cut at the start dropped), through the
   * {@link transformText} transform if one was given: only that transformed text is kept.
   */
  get text(): string {
    if (this.#text === undefined) {
      const store = this.#store!;
      this.#text = decode(store, this.#truncated);
      abandoned.unregister(store);
      releaseStore(store);
      this.#store = undefined;
    }
    const transform = this.#transform;
    if (transform !== undefined) {
      this.#transform = undefined;
      this.#text = transform(this.#text, this.#truncated);
    }
    return this.#text;
  }

  /**
   * Has the text go through `transform` (given the decoded text and whether the bound cut its
   * start) before it is kept: {@link text} gives, and the output keeps, only what `transform`
   * returns. The first transform given is the one applied; later ones are ignored.
   */
  transformText(transform: (text: string, truncated: boolean) => string): void {
    if (this.#transformed) return;
    this.#transformed = true;
    this.#transform = transform;
  }

  /** Whether the text is still to be decoded (its bytes held in a file or in blocks). */
  get pending(): boolean {
    return this.#text === undefined;
  }

  /** Whether its bytes wait in a spill file (one open descriptor) until the text is read. */
  get holdsFile(): boolean {
    return this.#store?.fd !== undefined;
  }
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
  /**
   * At most this many finished windows ({@link OutputTail.takeKept}) across the process keep their
   * output in a spill file until read; past it a finished window is decoded at once. Default
   * {@link maxKeptFiles}.
   */
  readonly maxKeptFiles?: number;
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
  /** {@link OutputTailOptions.maxKeptFiles}; undefined: {@link maxKeptFiles}, read when first needed. */
  readonly #maxKeptFiles: number | undefined;
  /** Slots of the spill file's ring, one block each: enough for every block of a full tail. */
  readonly #slots: number;
  /** The current window's kept bytes; a new one after {@link takeKept}. */
  #store: Store;
  #spillFailed = false;
  #registered = false;
  #total = 0;

  constructor(maxBytes: number, options: OutputTailOptions | OutputBlockPool = {}) {
    const {
      pool = outputBlocks,
      spillAboveBytes = DEFAULT_SPILL_ABOVE_BYTES,
      maxKeptFiles: keptFilesLimit,
    } = "acquire" in options ? { pool: options } : options;
    this.#maxKeptFiles = keptFilesLimit;
    this.#maxBytes = maxBytes;
    this.#pool = pool;
    this.#spillAbove = spillAboveBytes;
    this.#slots = Math.ceil(maxBytes / OUTPUT_BLOCK_BYTES) + 1;
    this.#store = newStore(pool, this.#slots);
  }

  /** Bytes seen since construction or the last {@link take}. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Blocks this tail holds in memory now. */
  get blocks(): number {
    return this.#store.blocks.length;
  }

  /** Blocks this tail keeps in its spill file now. */
  get spilledBlocks(): number {
    return this.#store.spilled;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#total += chunk.length;
    const max = this.#maxBytes;
    if (max === 0) return;
    const store = this.#store;
    const data = chunk.length > max ? chunk.subarray(chunk.length - max) : chunk;
    // Drop what the new bytes push out of the bound first, so its blocks are reused for them.
    const drop = store.kept + data.length - max;
    if (drop > 0) {
      store.start += drop;
      store.kept -= drop;
      while (store.start >= OUTPUT_BLOCK_BYTES) {
        if (store.spilled > 0) {
          store.spilled--;
          store.spillHead = (store.spillHead + 1) % store.slots;
        } else this.#pool.release(store.blocks.shift()!);
        store.start -= OUTPUT_BLOCK_BYTES;
      }
    }
    let written = 0;
    while (written < data.length) {
      const at = store.start + store.kept;
      const global = Math.floor(at / OUTPUT_BLOCK_BYTES);
      const index = global - store.spilled; // spilled blocks are all full: the end is in memory
      if (index === store.blocks.length) store.blocks.push(this.#acquire());
      const offset = at - global * OUTPUT_BLOCK_BYTES;
      const n = Math.min(data.length - written, OUTPUT_BLOCK_BYTES - offset);
      // TypedArray `set` from a plain view: a built-in, where `Buffer#copy` runs (and has V8
      // compile) several JavaScript wrappers per call.
      store.blocks[index]!.bytes.set(new Uint8Array(data.buffer, data.byteOffset + written, n), offset);
      written += n;
      store.kept += n;
    }
    if (store.blocks.length > 1 && !this.#spillFailed && this.#spilling()) this.#spillFailed = !spill(store, false);
  }

  /** Whether the pool has more than {@link OutputTailOptions.spillAboveBytes} of blocks in use. */
  #spilling(): boolean {
    return this.#pool.blocksInUse * OUTPUT_BLOCK_BYTES > this.#spillAbove;
  }

  /**
   * The kept tail decoded as UTF-8 (when bytes were dropped, a character the bound cut at the start
   * is dropped too), the count of bytes seen, and whether any were dropped. Does not reset.
   */
  peek(): { text: string; bytes: number; truncated: boolean } {
    const truncated = this.#total > this.#store.kept;
    return { text: decode(this.#store, truncated), bytes: this.#total, truncated };
  }

  /** {@link peek}, then starts over empty (nothing kept, count zero, the blocks given back). */
  take(): { text: string; bytes: number; truncated: boolean } {
    const result = this.peek();
    releaseStore(this.#store);
    this.#spillFailed = false;
    this.#total = 0;
    return result;
  }

  /**
   * Ends the window as {@link take} does, but hands its kept bytes to a {@link KeptOutput} that
   * decodes them when first read. A window that spilled writes its last block to its spill file
   * too, so it holds a descriptor and no memory; past {@link OutputTailOptions.maxKeptFiles} such
   * files it is decoded at once. A window that never spilled keeps its blocks (no file is opened
   * for a window a driver may only be dropping).
   */
  takeKept(): { output: KeptOutput; bytes: number; truncated: boolean } {
    const store = this.#store;
    const truncated = this.#total > store.kept;
    const bytes = this.#total;
    if (this.#registered) abandoned.unregister(store);
    this.#registered = false;
    this.#store = newStore(this.#pool, this.#slots);
    this.#spillFailed = false;
    this.#total = 0;
    // Room matters only to a window that spilled (holds a file): a run that never spilled does not read the limit.
    const room = store.fd === undefined || keptFiles < (this.#maxKeptFiles ?? maxKeptFiles());
    if (room && store.blocks.length > 0 && store.fd !== undefined) spill(store, true);
    return { output: new KeptOutput(store, truncated, room), bytes, truncated };
  }

  #acquire(): OutputBlock {
    if (!this.#registered) {
      this.#registered = true;
      abandoned.register(this, this.#store, this.#store);
    }
    return this.#pool.acquire();
  }
}
