import type { FileHandle } from "node:fs/promises";
import { DriverError, ErrCode } from "@adaptor/errors";
import { decodeRecord } from "../backend/encode-record.js";
import type { RecordedEvent } from "../backend/event-backend.js";
import { EventLogCorruptError } from "../errors/event-log-corrupt-error.js";

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** What a full scan found besides the records it yielded. */
export interface LogSummary {
  /** Sequence of the last complete record (0 when none). */
  readonly lastSequence: number;
  /** Byte offset just after the last complete line. */
  readonly completeEnd: number;
  /** Where a final line without its newline starts, if there is one. */
  readonly torn?: { readonly line: number; readonly offset: number };
}

/**
 * Reads the records of bytes `[0, end)` of a log in order, checking each line and the sequence
 * (1, 2, 3, ...). A complete line that is not a record, or a sequence fault, throws
 * EventLogCorruptError; a final line without its newline is reported in the summary, not thrown.
 */
export async function* readLog(
  handle: FileHandle,
  key: string,
  end: number,
  maxLineBytes: number,
  signal?: AbortSignal,
): AsyncGenerator<RecordedEvent, LogSummary> {
  let position = 0;
  let lineStart = 0;
  let lineNumber = 1;
  let lastSequence = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  while (position < end) {
    if (signal?.aborted) throw signal.reason;
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK_BYTES, end - position), position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE, from); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      pending.push(chunk.subarray(from, at));
      const line = Buffer.concat(pending).toString("utf8");
      const length = pendingBytes + (at - from);
      const record = decodeRecord(line);
      if (typeof record === "string") {
        throw new EventLogCorruptError({ key, kind: "malformed-line", line: lineNumber, offset: lineStart, detail: record });
      }
      const expected = lastSequence + 1;
      if (record.sequence !== expected) {
        throw new EventLogCorruptError({
          key,
          kind: record.sequence > expected ? "sequence-gap" : "duplicate-sequence",
          line: lineNumber,
          offset: lineStart,
          expectedSequence: expected,
          foundSequence: record.sequence,
        });
      }
      lastSequence = record.sequence;
      yield record;
      lineStart += length + 1;
      lineNumber++;
      pending = [];
      pendingBytes = 0;
      from = at + 1;
    }
    if (from < chunk.length) {
      pending.push(Buffer.from(chunk.subarray(from)));
      pendingBytes += chunk.length - from;
      if (pendingBytes > maxLineBytes) {
        throw new EventLogCorruptError({
          key,
          kind: "malformed-line",
          line: lineNumber,
          offset: lineStart,
          detail: `line longer than ${maxLineBytes} bytes`,
        });
      }
    }
    position += bytesRead;
  }
  return {
    lastSequence,
    completeEnd: lineStart,
    ...(pendingBytes > 0 ? { torn: { line: lineNumber, offset: lineStart } } : {}),
  };
}

/** What the end of a log says, read backwards from `size` without reading the whole file. */
export interface LogTail {
  /** Sequence of the last complete record (0 when the log has none). */
  readonly lastSequence: number;
  /** Byte offset just after the last complete line. */
  readonly completeEnd: number;
  /** True when bytes follow the last newline (a torn final line). */
  readonly torn: boolean;
}

/**
 * Reads the last complete line of a log to find its last sequence.
 * @throws EventLogCorruptError (`malformed-line`) when that line is not a record.
 */
export async function readTail(handle: FileHandle, key: string, size: number, maxLineBytes: number): Promise<LogTail> {
  if (size === 0) return { lastSequence: 0, completeEnd: 0, torn: false };
  const lastNewline = await findNewlineBefore(handle, key, size, maxLineBytes);
  const completeEnd = lastNewline + 1;
  const torn = completeEnd < size;
  if (lastNewline < 0) return { lastSequence: 0, completeEnd: 0, torn };
  const previous = await findNewlineBefore(handle, key, lastNewline, maxLineBytes);
  const start = previous + 1;
  const bytes = Buffer.alloc(lastNewline - start);
  await readFully(handle, bytes, start);
  const record = decodeRecord(bytes.toString("utf8"));
  if (typeof record === "string") {
    throw new EventLogCorruptError({ key, kind: "malformed-line", line: 0, offset: start, detail: `last line: ${record}` });
  }
  return { lastSequence: record.sequence, completeEnd, torn };
}

/** Offset of the last newline before `end`, or -1; a line longer than `maxLineBytes` is corrupt. */
async function findNewlineBefore(handle: FileHandle, key: string, end: number, maxLineBytes: number): Promise<number> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  for (let stop = end; stop > 0;) {
    const start = Math.max(0, stop - CHUNK_BYTES);
    const chunk = buffer.subarray(0, stop - start);
    await readFully(handle, chunk, start);
    const at = chunk.lastIndexOf(NEWLINE);
    if (at !== -1) return start + at;
    stop = start;
    if (end - stop > maxLineBytes + 1) {
      throw new EventLogCorruptError({
        key,
        kind: "malformed-line",
        line: 0,
        offset: stop,
        detail: `line longer than ${maxLineBytes} bytes`,
      });
    }
  }
  return -1;
}

async function readFully(handle: FileHandle, into: Buffer, position: number): Promise<void> {
  for (let done = 0; done < into.length;) {
    const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
    if (bytesRead === 0)
      throw new DriverError({ op: "read", device: "event log", code: ErrCode.Internal, cause: "the log shrank while being read" });
    done += bytesRead;
  }
}
