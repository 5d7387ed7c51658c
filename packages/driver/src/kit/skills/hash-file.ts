import type { Hash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** Most bytes one read of a skill file asks for while hashing. */
const HASH_CHUNK_BYTES = 1024 * 1024;

/**
 * Adds the bytes of the regular file at `path` to `hash`, read in chunks up to the length it had
 * when opened. Opened without blocking or following a link, and checked on the open handle: a FIFO
 * or device swapped in after the folder was listed is never waited on or read forever.
 * @throws Error for anything but a regular file; the I/O error.
 */
export function hashFile(hash: Hash, path: string): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${path} is not a regular file`);
    const chunk = Buffer.allocUnsafe(Math.min(HASH_CHUNK_BYTES, stat.size));
    for (let at = 0; at < stat.size;) {
      const read = readSync(fd, chunk, 0, Math.min(chunk.byteLength, stat.size - at), at);
      if (read === 0) break;
      hash.update(chunk.subarray(0, read));
      at += read;
    }
  } finally {
    closeSync(fd);
  }
}
