import { openRegularFile, readRange } from "./regular-file.js";

/** The first and last bytes of a file, read by {@link readFileEnds}. */
export interface FileEnds {
  /** The file's first `min(size, headBytes)` bytes. */
  readonly head: Buffer;
  /**
   * Its last bytes after the head, at most `tailBytes` (empty when the head holds the whole file).
   * `tail` starts at byte `size - tail.length`, so a line may be cut at its start.
   */
  readonly tail: Buffer;
  /** The file's length in bytes when opened. */
  readonly size: number;
  /** Its last modification time when opened. */
  readonly modified: Date;
}

/**
 * Reads at most `headBytes` from the start and `tailBytes` from the end of the regular file at
 * `path`, however long it is, so the memory a caller holds stays bounded (a CLI's transcript may
 * be gigabytes). Never blocks on what is at `path` and never follows a symbolic link (see
 * `openRegularFile`).
 * @throws DriverError (op `op`): `IS_DIRECTORY` / `INVALID` for anything but a regular file; the
 * I/O error of a failed open or read (`ENOENT` for a file gone since it was listed).
 */
export async function readFileEnds(path: string, headBytes: number, tailBytes: number, op: string): Promise<FileEnds> {
  const { handle, stat } = await openRegularFile(path, "read", op);
  try {
    const size = Number(stat.size);
    const head = Buffer.alloc(Math.min(size, headBytes));
    const headRead = await readRange(handle, head, 0);
    const tailLength = Math.max(0, Math.min(tailBytes, size - headRead));
    const tail = Buffer.alloc(tailLength);
    const tailRead = tailLength > 0 ? await readRange(handle, tail, size - tailLength) : 0;
    return { head: head.subarray(0, headRead), tail: tail.subarray(0, tailRead), size, modified: new Date(Number(stat.mtimeMs)) };
  } finally {
    await handle.close();
  }
}
