/**
 * Bytes a block commits at a time: its memory grows by this much as text is written, so a short
 * run's text costs a few pages, not a whole block.
 */
const GROW_BYTES = 16 * 1024;

/** Bytes of a block at most (address space reserved for it; only what was grown to is memory). */
const BLOCK_BYTES = 1024 * 1024;

/** A character that latin1 cannot hold (any code unit above U+00FF). */
const WIDE = /[\u0100-\uffff]/;

/** `ArrayBuffer` with ES2024's resizable form (not in the ES2023 library types). */
interface ResizableArrayBuffer extends ArrayBuffer {
  readonly resizable: boolean;
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}

interface Block {
  readonly memory: ArrayBuffer;
  /** A view of the block's committed bytes (made again when the block grows). */
  bytes: Buffer;
  /** Bytes written. */
  used: number;
}

/**
 * A long text appended piece by piece and read whole, kept as bytes outside the JavaScript heap.
 *
 * Text kept on the heap for a whole long turn is copied by each young-generation collection it
 * lives through and then promoted: for a 1.6 MB turn, enough copying and old-generation growth for
 * V8 to run a full collection mid-turn and grow its young generation (to 8 MiB or more), which
 * stays resident. Here the heap holds only a few small objects per MiB of text.
 *
 * The bytes are latin1 (one per character) until a piece holds a character above U+00FF; then the
 * text so far is written again as UTF-16LE (two per character) and so is every later piece, so any
 * string (lone surrogates too) reads back exactly as appended. They live in blocks of at most
 * {@link BLOCK_BYTES}, each a resizable `ArrayBuffer` (a mapping of its own that commits
 * {@link GROW_BYTES} at a time, returned to the system when collected), or a fixed buffer of
 * {@link GROW_BYTES} where `ArrayBuffer` is not resizable.
 */
export class OffHeapText {
  #blocks: Block[] = [];
  /** True once the text is kept as UTF-16LE. */
  #wide = false;
  /** Characters appended. */
  #length = 0;

  /** Characters appended so far (UTF-16 code units, as `String.length` counts them). */
  get length(): number {
    return this.#length;
  }

  /** Appends `piece` to the text. */
  append(piece: string): void {
    if (piece.length === 0) return;
    if (!this.#wide && WIDE.test(piece)) this.#widen();
    this.#write(piece);
    this.#length += piece.length;
  }

  /** The text appended so far, one string. */
  toString(): string {
    const encoding = this.#wide ? "utf16le" : "latin1";
    if (this.#blocks.length === 1) return this.#blocks[0]!.bytes.toString(encoding, 0, this.#blocks[0]!.used);
    return this.#blocks.map((block) => block.bytes.toString(encoding, 0, block.used)).join("");
  }

  #write(piece: string): void {
    const encoding = this.#wide ? "utf16le" : "latin1";
    const unit = this.#wide ? 2 : 1;
    let rest = piece;
    for (;;) {
      const block = this.#room();
      // Whole characters only: latin1 writes what fits, UTF-16LE whole code units (blocks are even).
      const written = block.bytes.write(rest, block.used, encoding);
      block.used += written;
      const chars = written / unit;
      if (chars === rest.length) return;
      rest = rest.slice(chars);
    }
  }

  /** The last block, grown or a new one when it is full. */
  #room(): Block {
    const last = this.#blocks[this.#blocks.length - 1];
    if (last && last.used < last.bytes.length) return last;
    const memory = last?.memory as ResizableArrayBuffer | undefined;
    if (last && memory?.resizable === true && memory.byteLength < memory.maxByteLength) {
      memory.resize(Math.min(memory.maxByteLength, memory.byteLength + GROW_BYTES));
      last.bytes = Buffer.from(memory, 0, memory.byteLength);
      return last;
    }
    const block = newBlock();
    this.#blocks.push(block);
    return block;
  }

  /** From now on UTF-16LE: the text so far is written again. */
  #widen(): void {
    const text = this.toString();
    this.#blocks = [];
    this.#wide = true;
    this.#write(text);
  }
}

function newBlock(): Block {
  const memory = new (ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ResizableArrayBuffer)(
    GROW_BYTES,
    {
      maxByteLength: BLOCK_BYTES,
    },
  );
  if (memory.resizable === true && typeof memory.resize === "function")
    return { memory, bytes: Buffer.from(memory, 0, GROW_BYTES), used: 0 };
  const fixed = new ArrayBuffer(GROW_BYTES);
  return { memory: fixed, bytes: Buffer.from(fixed), used: 0 };
}
