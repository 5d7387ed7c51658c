import type { FileHandle } from "node:fs/promises";

/** Bytes asked of the file per read while a transcript is scanned. */
const SCAN_CHUNK_BYTES = 256 * 1024;
/** Bytes kept of the start of an entry longer than the scan keeps whole. */
export const OVERSIZED_HEAD_BYTES = 64 * 1024;

/**
 * An entry's own `uuid`, as the CLI writes it: at the top level, right before its `timestamp`
 * (after the message, and before a tool result's `toolUseResult`, which can be longer still).
 * The same pair nested deeper (a tool call's input, a result's data) is not the entry's: a match
 * counts only where its first quote opens a key of the entry's object (see {@link TopLevelKeys}).
 */
const ENTRY_UUID = /"uuid":"([0-9a-fA-F-]{36})","timestamp":"/g;
/** Bytes of one piece of a long line kept for the next, so an {@link ENTRY_UUID} cut across two pieces is found. */
const ENTRY_UUID_CARRY = '"uuid":"'.length + 36 + '","timestamp":"'.length - 1;

/** One line of a transcript as the scan saw it. */
export interface ScannedLine {
  /** Where the line begins in the file, in bytes. */
  readonly offset: number;
  /** Its length in bytes, without the newline. */
  readonly length: number;
  /** The whole line, when it is at most the scan's `maxLineBytes` long. */
  readonly text?: Buffer;
  /**
   * A longer line: its first bytes (at most {@link OVERSIZED_HEAD_BYTES}), and the entry's own
   * `uuid` found anywhere in it (the first top-level `"uuid":"…","timestamp":"`), if any.
   */
  readonly oversized?: { readonly head: Buffer; readonly uuid: string | undefined };
}

/**
 * Reads the first `size` bytes of `handle` line by line (`\n`), `SCAN_CHUNK_BYTES` at a time, and
 * hands each line to `onLine` in order, so a transcript of any size is scanned with a bounded
 * buffer: a line longer than `maxLineBytes` is handed as its head and the entry uuid found in it
 * (searched piece by piece, with a few bytes and the JSON nesting carried between pieces; a pair
 * nested below the entry's own level is skipped). A last line without
 * its newline (one still being written) is handed too; the caller's parse decides.
 * @throws the read's I/O error; `signal.reason` when aborted (checked between reads).
 */
export async function scanLines(
  handle: FileHandle,
  size: number,
  maxLineBytes: number,
  onLine: (line: ScannedLine) => void,
  signal?: AbortSignal,
): Promise<void> {
  const chunk = Buffer.alloc(SCAN_CHUNK_BYTES);
  let parts: Buffer[] = [];
  let kept = 0;
  let lineStart = 0;
  let lineBytes = 0;
  let head: Buffer | undefined;
  let uuid: string | undefined;
  let carry = "";
  let keys = new TopLevelKeys();
  const search = (piece: Buffer): void => {
    if (uuid !== undefined) return;
    // Where `text` begins in the line, in bytes (latin1: one character a byte).
    const base = keys.scanned - carry.length;
    keys.scan(piece);
    const text = carry + piece.toString("latin1");
    for (const match of text.matchAll(ENTRY_UUID)) {
      if (keys.opensAt(base + match.index)) {
        uuid = match[1];
        break;
      }
    }
    carry = text.slice(-ENTRY_UUID_CARRY);
    keys.forgetBefore(base + text.length - carry.length);
  };
  const take = (piece: Buffer): void => {
    lineBytes += piece.length;
    if (head === undefined && kept + piece.length <= maxLineBytes) {
      parts.push(Buffer.from(piece));
      kept += piece.length;
      return;
    }
    if (head === undefined) {
      const whole = Buffer.concat([...parts, piece]);
      head = Buffer.from(whole.subarray(0, OVERSIZED_HEAD_BYTES));
      parts = [];
      kept = 0;
      search(whole);
      return;
    }
    search(piece);
  };
  const finish = (): void => {
    if (head !== undefined) onLine({ offset: lineStart, length: lineBytes, oversized: { head, uuid } });
    else if (lineBytes > 0) onLine({ offset: lineStart, length: lineBytes, text: parts.length === 1 ? parts[0]! : Buffer.concat(parts) });
    lineStart += lineBytes + 1;
    parts = [];
    kept = lineBytes = 0;
    head = uuid = undefined;
    carry = "";
    keys = new TopLevelKeys();
  };
  let position = 0;
  while (position < size) {
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(chunk, 0, Math.min(SCAN_CHUNK_BYTES, size - position), position);
    if (bytesRead === 0) break; // shortened since it was opened
    let from = 0;
    while (from < bytesRead) {
      const newline = chunk.indexOf(10, from);
      if (newline === -1 || newline >= bytesRead) {
        take(chunk.subarray(from, bytesRead));
        break;
      }
      take(chunk.subarray(from, newline));
      finish();
      from = newline + 1;
    }
    position += bytesRead;
  }
  if (lineBytes > 0) finish();
}

/**
 * Where the strings of a JSON object's own level begin (its keys, and string values at that level),
 * in a line fed piece by piece: nesting depth, whether inside a string and after a backslash carry
 * across pieces. Bytes are read as they are (a UTF-8 sequence holds no byte below 0x80, so none of
 * the structural characters).
 */
class TopLevelKeys {
  /** Bytes scanned so far. */
  scanned = 0;
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Offsets of the quotes that open a string at depth 1, from the last `forgetBefore` on. */
  #opens: number[] = [];

  scan(piece: Buffer): void {
    let depth = this.#depth;
    let inString = this.#inString;
    let escaped = this.#escaped;
    for (let i = 0; i < piece.length; i++) {
      const byte = piece[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) {
        inString = true;
        if (depth === 1) this.#opens.push(this.scanned + i);
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--;
    }
    this.#depth = depth;
    this.#inString = inString;
    this.#escaped = escaped;
    this.scanned += piece.length;
  }

  /** Whether the quote at byte `offset` of the line opens a string at depth 1. */
  opensAt(offset: number): boolean {
    return this.#opens.includes(offset);
  }

  /** Drops the quotes before byte `offset`, which no later search asks about. */
  forgetBefore(offset: number): void {
    this.#opens = this.#opens.filter((open) => open >= offset);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Reads `length` bytes of `handle` from byte `offset`, or fewer at the end of the file.
 * @throws the read's I/O error.
 */
export async function readLine(handle: FileHandle, offset: number, length: number): Promise<Buffer> {
  const into = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(into, done, length - done, offset + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? into : into.subarray(0, done);
}
