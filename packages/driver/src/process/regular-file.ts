import { constants, type BigIntStats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { DriverError, ErrCode } from "@adaptor/errors";

/** Most bytes one `read(2)` or `write(2)` of a file asks for (Node asserts on a length of 2 GiB or more). */
export const IO_CHUNK_BYTES = 8 * 1024 * 1024;

/** A regular file opened by {@link openRegularFile}, and its status when opened. */
export interface OpenedRegularFile {
  /** The open file; the caller closes it. */
  readonly handle: FileHandle;
  /** `fstat` of the handle (sizes and times as bigints). */
  readonly stat: BigIntStats;
}

/** Options of {@link openRegularFile}. */
export interface OpenRegularFileOptions {
  /**
   * Follow a symbolic link at `path` (a settings file kept in a dotfiles folder) instead of
   * refusing it; what it leads to must still be a regular file. Default `false`.
   */
  readonly followLinks?: boolean;
}

/**
 * Opens the regular file at `path` without ever blocking on what is there: `O_NONBLOCK` (a FIFO
 * in its place is not waited on for a writer), `O_NOFOLLOW` unless `followLinks` (a symbolic link
 * is refused, not followed to a device), then `fstat` of the opened handle, so a file swapped in
 * between a check and the open is judged too. `mode` `"read"` opens it read-only, `"write"`
 * read-write, `"append"` read-write with every write at the file's end (`O_APPEND`: a line written
 * while another process appends to the same file lands whole after the line before it).
 * @param op - the operation named in the error, e.g. `"read session file"`.
 * @throws DriverError (op `op`, device `path`): `IS_DIRECTORY` for a directory, `INVALID` for a
 * symbolic link, FIFO, socket or device; the `open` error as is for anything else (`ENOENT` for a
 * missing file, `EACCES`).
 */
export async function openRegularFile(
  path: string,
  mode: "read" | "write" | "append",
  op: string,
  { followLinks = false }: OpenRegularFileOptions = {},
): Promise<OpenedRegularFile> {
  const access = mode === "read" ? constants.O_RDONLY : mode === "append" ? constants.O_RDWR | constants.O_APPEND : constants.O_RDWR;
  let handle: FileHandle;
  try {
    handle = await open(path, access | constants.O_NONBLOCK | (followLinks ? 0 : constants.O_NOFOLLOW));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new DriverError({ op, device: path, code: ErrCode.Invalid, cause: "a symbolic link, not a regular file" });
    // A socket cannot be opened at all; a FIFO opened for writing with no reader neither.
    if (code === "ENXIO") throw new DriverError({ op, device: path, code: ErrCode.Invalid, cause: "a socket or FIFO, not a regular file" });
    if (code === "EISDIR") throw new DriverError({ op, device: path, code: ErrCode.IsDirectory, cause: "a directory, not a regular file" });
    throw error;
  }
  let stat: BigIntStats;
  try {
    stat = await handle.stat({ bigint: true });
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (stat.isFile()) return { handle, stat };
  await handle.close();
  if (stat.isDirectory()) throw new DriverError({ op, device: path, code: ErrCode.IsDirectory, cause: "a directory, not a regular file" });
  throw new DriverError({ op, device: path, code: ErrCode.Invalid, cause: `a ${kindOf(stat)}, not a regular file` });
}

/** What a file that is not regular or a directory is, for people. */
function kindOf(stat: BigIntStats): string {
  if (stat.isFIFO()) return "FIFO";
  if (stat.isSocket()) return "socket";
  if (stat.isCharacterDevice()) return "character device";
  if (stat.isBlockDevice()) return "block device";
  return "special file";
}

/**
 * Reads `into.byteLength` bytes of `handle` from byte `position` on, at most
 * {@link IO_CHUNK_BYTES} per read. Stops early at the end of the file (one shortened while read).
 * @returns how many bytes were read.
 */
export async function readRange(handle: FileHandle, into: Uint8Array, position: number): Promise<number> {
  let read = 0;
  while (read < into.byteLength) {
    const { bytesRead } = await handle.read(into, read, Math.min(IO_CHUNK_BYTES, into.byteLength - read), position + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return read;
}
