import { randomUUID } from "node:crypto";
import { mkdir, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import type { BigIntStats } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** How long {@link readSessionFile} waits for a CLI to finish writing a session file, in ms. */
const SETTLE_MS = 5_000;
/** Poll interval of {@link readSessionFile}, in ms. */
const POLL_MS = 50;

/**
 * Reads a CLI's session file once it holds `marker` (the checkpoint's last entry, which the CLI may
 * still be flushing when its turn's terminal line arrives), polling for up to 5 s. Resolves
 * `undefined` when the file does not exist.
 * @throws Error when the file never holds `marker`; the I/O error for an unreadable file;
 * `signal.reason` when aborted.
 */
export async function readSessionFile(
  path: string,
  marker: (content: Buffer) => boolean,
  signal?: AbortSignal,
): Promise<Buffer | undefined> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    signal?.throwIfAborted();
    let content: Buffer;
    try {
      content = await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    if (marker(content)) return content;
    if (Date.now() >= deadline) throw new Error(`session file ${path} does not hold the checkpoint's last entry`);
    await sleep(POLL_MS, undefined, signal ? { signal } : undefined);
  }
}

/** Part of a file read by {@link readSessionFileFrom}: its length and its bytes from `offset` on. */
export interface SessionFilePart {
  /** The file's length in bytes when read. */
  readonly bytes: number;
  /** Where `content` begins (the offset asked for, at most `bytes`). */
  readonly offset: number;
  /** The bytes from `offset` to `bytes`. */
  readonly content: Buffer;
  /**
   * The file's identity when read (device, inode, size, modification and change times in ns): any
   * write to the file, or a new file at the path, gives another identity.
   */
  readonly identity?: string;
}

/**
 * {@link readSessionFile} reading only from byte `offset` on (an offset at or past the end gives the
 * length and no bytes): `marker` is checked against those bytes. One read of `length - offset`
 * bytes per try, however long the file is. A file shorter than `offset` is returned at once (it
 * was not appended to, so its entries are not where a caller looks for them). When `marker` never
 * matches the bytes from `offset`, the whole file is checked once before giving up, so the outcome
 * is the one {@link readSessionFile} would give.
 * @throws as {@link readSessionFile}; RangeError for an offset that is not a non-negative number.
 */
export async function readSessionFileFrom(
  path: string,
  offset: number,
  marker: (content: Buffer) => boolean,
  signal?: AbortSignal,
): Promise<SessionFilePart | undefined> {
  if (!(offset >= 0)) throw new RangeError(`session file offset must be a non-negative number, got ${offset}`);
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    signal?.throwIfAborted();
    let part: SessionFilePart;
    try {
      part = await readPart(path, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    if (part.bytes < offset || marker(part.content)) return part;
    if (Date.now() >= deadline) {
      const whole = offset > 0 ? await readPart(path, 0) : undefined;
      if (whole && marker(whole.content)) return partFrom(whole, offset);
      throw new Error(`session file ${path} does not hold the checkpoint's last entry`);
    }
    await sleep(POLL_MS, undefined, signal ? { signal } : undefined);
  }
}

/** `whole` (a part from 0) from `offset` on. */
export function partFrom(whole: SessionFilePart, offset: number): SessionFilePart {
  const start = Math.min(offset, whole.bytes);
  return {
    bytes: whole.bytes,
    offset: start,
    content: whole.content.subarray(start),
    ...(whole.identity !== undefined ? { identity: whole.identity } : {}),
  };
}

/** {@link SessionFilePart.identity} of a file from its stat (the change time is one no user can set back). */
function identityOf(stat: BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/** The length of the file at `path` and its bytes from `offset` to that length. */
async function readPart(path: string, offset: number): Promise<SessionFilePart> {
  const file = await open(path, "r");
  try {
    const stat = await file.stat({ bigint: true });
    const size = Number(stat.size);
    const start = Math.min(offset, size);
    const content = Buffer.allocUnsafe(size - start);
    let read = 0;
    while (read < content.byteLength) {
      const { bytesRead } = await file.read(content, read, content.byteLength - read, start + read);
      if (bytesRead === 0) break; // shortened while read: what is there
      read += bytesRead;
    }
    return {
      bytes: start + read,
      offset: start,
      content: read === content.byteLength ? content : content.subarray(0, read),
      identity: identityOf(stat),
    };
  } finally {
    await file.close();
  }
}

/**
 * Writes `content` at byte `offset` of the existing file at `path`, which must hold at least
 * `offset` bytes (an older copy the caller checked; a CLI may have added entries when its process
 * ended): what follows `offset` is replaced, everything before it is left as it is, and the file
 * keeps its mode.
 * @throws Error when the file is shorter than `offset`; the I/O error (ENOENT for a missing file).
 */
export async function appendSessionFile(path: string, offset: number, content: Uint8Array): Promise<void> {
  const file = await open(path, "r+");
  try {
    const { size } = await file.stat();
    if (size < offset) throw new Error(`session file ${path} is ${size} bytes, shorter than the ${offset} the append expects`);
    if (size > offset) await file.truncate(offset);
    let written = 0;
    while (written < content.byteLength) {
      const { bytesWritten } = await file.write(content, written, content.byteLength - written, offset + written);
      written += bytesWritten;
    }
  } finally {
    await file.close();
  }
}

/**
 * Writes `content` to `path` atomically (a private temp file beside it, then a rename), making
 * missing parent directories (mode 0700); the file gets mode 0600. `stale` paths (other copies of
 * the same session) are removed first.
 */
export async function writeSessionFile(path: string, content: Uint8Array, stale: readonly string[] = []): Promise<void> {
  await Promise.all(stale.filter((other) => other !== path).map((other) => rm(other, { force: true })));
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = join(dirname(path), `.adaptor-${randomUUID()}.tmp`);
  try {
    await writeFile(temp, content, { mode: 0o600 });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
