import type { FileHandle } from "node:fs/promises";

/** Bytes asked of the file per read while a transcript is scanned. */
const SCAN_CHUNK_BYTES = 256 * 1024;
/** Bytes kept of each end of an entry longer than the scan keeps whole. */
export const OVERSIZED_EDGE_BYTES = 64 * 1024;

/** One line of a transcript as the scan saw it. */
export interface ScannedLine {
  /** Where the line begins in the file, in bytes. */
  readonly offset: number;
  /** Its length in bytes, without the newline. */
  readonly length: number;
  /** The whole line, when it is at most the scan's `maxLineBytes` long. */
  readonly text?: Buffer;
  /** A longer line's first and last bytes (at most {@link OVERSIZED_EDGE_BYTES} each). */
  readonly edges?: { readonly head: Buffer; readonly tail: Buffer };
}

/**
 * Reads the first `size` bytes of `handle` line by line (`\n`), `SCAN_CHUNK_BYTES` at a time, and
 * hands each line to `onLine` in order, so a transcript of any size is scanned with a bounded
 * buffer: a line longer than `maxLineBytes` is handed as its two ends only. A last line without
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
  let tail = Buffer.alloc(0);
  const take = (piece: Buffer): void => {
    lineBytes += piece.length;
    if (head === undefined && kept + piece.length <= maxLineBytes) {
      parts.push(Buffer.from(piece));
      kept += piece.length;
      return;
    }
    if (head === undefined) {
      const whole = Buffer.concat([...parts, piece]);
      head = Buffer.from(whole.subarray(0, OVERSIZED_EDGE_BYTES));
      tail = Buffer.from(whole.subarray(Math.max(0, whole.length - OVERSIZED_EDGE_BYTES)));
      parts = [];
      kept = 0;
      return;
    }
    const joined = Buffer.concat([tail, piece]);
    tail = Buffer.from(joined.subarray(Math.max(0, joined.length - OVERSIZED_EDGE_BYTES)));
  };
  const finish = (): void => {
    if (head !== undefined) onLine({ offset: lineStart, length: lineBytes, edges: { head, tail } });
    else if (lineBytes > 0) onLine({ offset: lineStart, length: lineBytes, text: parts.length === 1 ? parts[0]! : Buffer.concat(parts) });
    lineStart += lineBytes + 1;
    parts = [];
    kept = lineBytes = 0;
    head = undefined;
    tail = Buffer.alloc(0);
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
