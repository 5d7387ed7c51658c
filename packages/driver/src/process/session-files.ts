import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, realpath, rename, rm, unlink, writeFile } from "node:fs/promises";
import type { BigIntStats } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DriverError, ErrCode } from "@adaptor/errors";
import { openRegularFile, IO_CHUNK_BYTES, readRange } from "./regular-file.js";

/**
 * Most bytes a CLI session file may hold for the SDK to read, store or restore it: 1 GiB. The SDK
 * holds a file it reads in memory, and checks the length before reading or hashing anything; a
 * longer file (a runaway transcript, a sparse file) is refused with a `DriverError` coded
 * `RESOURCE_EXHAUSTED`, which portable sessions report as `too_large`.
 */
export const SESSION_FILE_LIMIT_BYTES = 1024 * 1024 * 1024;

/** The operation a refused or failed read names. */
const READ_OP = "read session file";
/** How long {@link readSessionFile} waits for a CLI to finish writing a session file, in ms. */
const SETTLE_MS = 5_000;
/** Poll interval of {@link readSessionFile}, in ms. */
const POLL_MS = 50;

/**
 * Reads a CLI's session file once it holds `marker` (the checkpoint's last entry, which the CLI may
 * still be flushing when its turn's terminal line arrives), polling for up to 5 s. Resolves
 * `undefined` when the file does not exist. Never blocks on what is at `path` (see
 * {@link readSessionFileFrom}).
 * @throws Error when the file never holds `marker`; DriverError (op `read session file`):
 * `IS_DIRECTORY` / `INVALID` for anything but a regular file of its own (a directory, a symbolic
 * link, a FIFO, a socket, a device, a hard link: a file with more than one name),
 * `RESOURCE_EXHAUSTED` for a file over {@link SESSION_FILE_LIMIT_BYTES}; the
 * I/O error for an unreadable file; `signal.reason` when aborted.
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
      content = (await readPart(path, 0)).content;
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
 * length and no bytes): `marker` is checked against those bytes. Reads `length - offset` bytes per
 * try, in reads of at most 8 MiB, however long the file is. The file is opened without blocking or
 * following a symbolic link, and anything but a regular file of at most
 * {@link SESSION_FILE_LIMIT_BYTES} is refused before a byte is read, so a FIFO, a device or a huge
 * sparse file in its place never hangs or exhausts the host. A file shorter than `offset` is
 * returned at once (it was not appended to, so its entries are not where a caller looks for them). When `marker` never
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

/**
 * Appends one line (`line`, without its newline) to the end of the CLI session file at `path`,
 * which a CLI process may be appending to at the same moment: the file is opened `O_APPEND` and the
 * line goes out in one `write(2)` where the system takes it whole (a line and its newline), so it
 * lands after whatever line is complete when it is written and nothing already there is moved or
 * rewritten. A file whose last byte is not a newline (a line torn by a process that died
 * mid-write) gets one first, so the new line is a line of its own. Never follows a link, never
 * blocks on what is at `path` (see `openRegularFile`).
 * @param root - the CLI home `path` is below: once the file is open, its folder must still be the
 *   one below `root` (see {@link confirmSessionFolder}); default none (no check).
 * @returns `false`, writing nothing, when there is no file at `path` or it is empty (a session
 * the CLI has not begun to write); `true` once the line is written.
 * @throws DriverError (op `op`): `IS_DIRECTORY` / `INVALID` for anything but a regular file of
 * its own (a directory, a symbolic link, a FIFO, a hard link: writing one writes its other names
 * too); `INVALID`, nothing written, when a folder on the way below `root` is a link; the I/O error
 * of a failed open, read or write.
 */
export async function appendSessionLine(path: string, line: string, op: string, root?: string): Promise<boolean> {
  if (line.includes("\n")) throw new TypeError("a session line holds no newline");
  let opened;
  try {
    opened = await openRegularFile(path, "append", op);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  const { handle, stat } = opened;
  try {
    refuseHardLink(stat, path, op);
    if (root !== undefined) await confirmSessionFolder(root, path, op);
    const size = Number(stat.size);
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    await readRange(handle, last, size - 1);
    const content = Buffer.from(`${last[0] === 0x0a ? "" : "\n"}${line}\n`, "utf8");
    let written = 0;
    while (written < content.byteLength) {
      const { bytesWritten } = await handle.write(content, written, Math.min(IO_CHUNK_BYTES, content.byteLength - written), null);
      if (bytesWritten <= 0) throw new DriverError({ op, device: path, code: ErrCode.Internal, cause: "the write made no progress" });
      written += bytesWritten;
    }
    return true;
  } finally {
    await handle.close();
  }
}

/**
 * Refuses a session file with more than one name (a hard link): its bytes are also a file
 * elsewhere, which the CLI would write through it. The SDK writes session files anew, never linked.
 * @throws DriverError (op `op`, device `path`) `INVALID`.
 */
function refuseHardLink(stat: BigIntStats, path: string, op: string): void {
  if (stat.nlink > 1n)
    throw new DriverError({ op, device: path, code: ErrCode.Invalid, cause: `a hard link (${stat.nlink} names), not a file of its own` });
}

/**
 * The length of the regular file at `path` and its bytes from `offset` to that length.
 * @throws as {@link readSessionFile} for a file that is not regular or is over the limit.
 */
async function readPart(path: string, offset: number): Promise<SessionFilePart> {
  const { handle, stat } = await openRegularFile(path, "read", READ_OP);
  try {
    refuseHardLink(stat, path, READ_OP);
    const size = Number(stat.size);
    if (size > SESSION_FILE_LIMIT_BYTES)
      throw new DriverError({
        op: READ_OP,
        device: path,
        code: ErrCode.ResourceExhausted,
        cause: `${size} bytes, over the limit of ${SESSION_FILE_LIMIT_BYTES}`,
      });
    const start = Math.min(offset, size);
    const content = Buffer.allocUnsafe(size - start);
    // Shortened while read: what is there.
    const read = await readRange(handle, content, start);
    return {
      bytes: start + read,
      offset: start,
      content: read === content.byteLength ? content : content.subarray(0, read),
      identity: identityOf(stat),
    };
  } finally {
    await handle.close();
  }
}

/**
 * Writes `content` at byte `offset` of the existing file at `path`, which must hold at least
 * `offset` bytes (an older copy the caller checked; a CLI may have added entries when its process
 * ended): what follows `offset` is replaced, everything before it is left as it is, and the file
 * keeps its mode. Opened as {@link readSessionFile} opens it: anything but a regular file is refused.
 * @throws Error when the file is shorter than `offset`; DriverError (op `append session file`)
 * `IS_DIRECTORY` / `INVALID` for anything but a regular file of its own (a hard link too); the I/O
 * error (ENOENT for a missing file).
 */
export async function appendSessionFile(path: string, offset: number, content: Uint8Array): Promise<void> {
  const { handle, stat } = await openRegularFile(path, "write", "append session file");
  try {
    refuseHardLink(stat, path, "append session file");
    const size = Number(stat.size);
    if (size < offset) throw new Error(`session file ${path} is ${size} bytes, shorter than the ${offset} the append expects`);
    if (size > offset) await handle.truncate(offset);
    let written = 0;
    while (written < content.byteLength) {
      const length = Math.min(IO_CHUNK_BYTES, content.byteLength - written);
      const { bytesWritten } = await handle.write(content, written, length, offset + written);
      written += bytesWritten;
    }
  } finally {
    await handle.close();
  }
}

/**
 * Writes `content` to `path` atomically (a private temp file beside it, then a rename), making
 * missing parent directories (mode 0700); the file gets mode 0600. `stale` paths (other copies of
 * the same session) are removed first. A directory in `path`'s place (never a CLI's own: a session
 * file is a file) is moved aside, whole, to `.<name>.adaptor-displaced-<uuid>` beside it, so what it
 * holds is kept for its owner and never followed or deleted: the rename moves the entry itself.
 * @param within - the CLI home `path` is below (`root`) and the operation its error names (`op`):
 *   just before the rename, `path`'s folder must still be the one below `root` (see
 *   {@link confirmSessionFolder}); default none (no check).
 * @throws DriverError (op `within.op`) `INVALID`, the temp file removed and `path` untouched, when a
 * folder on the way below `within.root` is a link; the I/O error of a failed write or rename.
 */
export async function writeSessionFile(
  path: string,
  content: Uint8Array,
  stale: readonly string[] = [],
  within?: { readonly root: string; readonly op: string },
): Promise<void> {
  await Promise.all(stale.filter((other) => other !== path).map((other) => rm(other, { force: true })));
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = join(dirname(path), `.adaptor-${randomUUID()}.tmp`);
  try {
    await writeFile(temp, content, { mode: 0o600 });
    if (within !== undefined) await confirmSessionFolder(within.root, path, within.op);
    try {
      await rename(temp, path);
    } catch (error) {
      if (!(await displaceFolder(path, error))) throw error;
      await rename(temp, path);
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Creates the new CLI session file `path` below the CLI home `root` with `content` (mode 0600):
 * opened `O_CREAT | O_EXCL | O_NOFOLLOW`, so nothing already at `path` (a session of the same
 * name, a link, a FIFO) is opened, followed or replaced. Its folder must exist and, before and
 * once the file is open, be the folder it names below `root` (see {@link checkSessionFolders},
 * {@link confirmSessionFolder}). A failed write removes the file it created.
 * @throws DriverError (op `op`) `INVALID`, nothing left behind, when a folder on the way below
 * `root` is a link; the I/O error of the open (`EEXIST` for anything at `path`, `ENOENT` for a
 * missing folder) or the write.
 */
export async function createSessionFile(path: string, content: Uint8Array, root: string, op: string): Promise<void> {
  await checkSessionFolders(root, path, op);
  await confirmSessionFolder(root, path, op);
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  let done = false;
  try {
    await confirmSessionFolder(root, path, op);
    let written = 0;
    while (written < content.byteLength) {
      const { bytesWritten } = await handle.write(content, written, Math.min(IO_CHUNK_BYTES, content.byteLength - written), written);
      if (bytesWritten <= 0) throw new DriverError({ op, device: path, code: ErrCode.Internal, cause: "the write made no progress" });
      written += bytesWritten;
    }
    done = true;
  } finally {
    await handle.close();
    // The file is this call's own (O_EXCL): what it created is removed, whatever the path leads to now.
    if (!done) await rm(path, { force: true });
  }
}

/**
 * After a rename onto `path` failed with `error`: moves a directory found at `path` to a new name
 * beside it (a rename of the entry, whatever it has become since, so no link is followed and nothing
 * leaves the folder). Whether it did.
 */
async function displaceFolder(path: string, error: unknown): Promise<boolean> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== "EISDIR" && code !== "ENOTEMPTY" && code !== "EEXIST") return false;
  const stat = await lstat(path).catch(() => undefined);
  if (!stat?.isDirectory()) return false;
  await rename(path, join(dirname(path), `.${basename(path)}.adaptor-displaced-${randomUUID()}`));
  return true;
}

/**
 * The folders between `root` (excluded) and `path`'s own folder (included), outermost first, or
 * none when `path` is not below `root`.
 */
function foldersBetween(root: string, path: string): string[] {
  const rel = relative(root, dirname(path));
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return [];
  const parts = rel.split(sep);
  return parts.map((_, i) => join(root, ...parts.slice(0, i + 1)));
}

/**
 * Checks that each folder between the CLI home `root` and the session file `path` is a folder of
 * its own, not a symbolic link (or anything else) planted in its place, so a read or write of
 * `path` never leads outside the CLI home. `root` itself may be a link (a home kept elsewhere).
 * A missing folder ends the check (the file is missing too).
 * @param op - the operation named in the error; default `"read session file"`.
 * @throws DriverError (op `op`, device the folder) `INVALID` for a symbolic link or anything but
 * a folder; the `lstat` error for another failure than a missing path.
 */
export async function checkSessionFolders(root: string, path: string, op = READ_OP): Promise<void> {
  for (const folder of foldersBetween(root, path)) {
    let stat;
    try {
      stat = await lstat(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    if (!stat.isDirectory()) {
      const what = stat.isSymbolicLink() ? "a symbolic link" : "not a folder";
      throw new DriverError({ op, device: folder, code: ErrCode.Invalid, cause: `${what} in place of a session folder` });
    }
  }
}

/**
 * Checks that the folder of the session file `path`, every link in it resolved, is still the folder
 * it names below the CLI home `root` (`root`'s own links resolved: a home kept elsewhere): a folder
 * on the way swapped for a symbolic link after {@link checkSessionFolders} looked would have a write
 * of `path` land outside the home. Nothing to check when `path` is not below `root`.
 * @throws DriverError (op `op`, device `path`'s folder) `INVALID` when it resolves elsewhere; the
 * `realpath` error of a folder that is gone.
 */
export async function confirmSessionFolder(root: string, path: string, op: string): Promise<void> {
  const folder = dirname(path);
  const rel = relative(root, folder);
  if (rel.startsWith("..") || isAbsolute(rel)) return;
  const [home, actual] = await Promise.all([realpath(root), realpath(folder)]);
  if (actual !== join(home, rel))
    throw new DriverError({ op, device: folder, code: ErrCode.Invalid, cause: `a symbolic link on the way: the folder is ${actual}` });
}

/**
 * Removes what was planted in place of the session files `paths` below the CLI home `root`: a
 * symbolic link in place of a folder between `root` and a file (the link itself, never what it
 * points at), and in place of a file a symbolic link, a FIFO, socket or device, or a hard link (a
 * regular file with more than one name: writing to it writes the other names too). A folder in
 * place of a file, a regular file of its own, or nothing, is left as it is. Called before a parked
 * CLI process serving the session is ended: such a process may append its exit lines to its
 * session file by path, and must never write through a link to a file outside its home.
 * @throws the I/O error of an `lstat` or `unlink` that fails for another reason than a missing path.
 */
export async function unlinkPlantedLinks(root: string, paths: readonly string[]): Promise<void> {
  const lstatOrNothing = async (path: string) => {
    try {
      return await lstat(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  };
  const unlinkOrNothing = async (path: string) => {
    try {
      await unlink(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  };
  for (const path of paths) {
    let below = true;
    for (const folder of foldersBetween(root, path)) {
      const stat = await lstatOrNothing(folder);
      if (stat?.isSymbolicLink()) await unlinkOrNothing(folder);
      if (!stat?.isDirectory()) {
        below = false;
        break;
      }
    }
    if (!below) continue;
    const stat = await lstatOrNothing(path);
    if (stat && !stat.isDirectory() && (!stat.isFile() || stat.nlink > 1)) await unlinkOrNothing(path);
  }
}
