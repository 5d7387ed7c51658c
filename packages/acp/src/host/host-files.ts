import { constants, type Stats } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { RequestError } from "@agentclientprotocol/sdk";

/**
 * The most bytes the host reads for one `fs/read_text_file`: 16 MiB. A larger file is refused
 * (invalid params, with its size); with `line` / `limit` the host reads from the start only up to the
 * last line asked for, so the first lines of a larger file are still served.
 */
export const HOST_READ_LIMIT_BYTES = 16 * 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;

/** What a non-regular file is, for a refusal. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

function notRegular(method: string, path: string, kind: string, cause?: unknown): RequestError {
  const error = RequestError.invalidParams(
    { path },
    `${method} refused by the host: ${path} is ${kind}; the path must name a regular file`,
  );
  return cause === undefined ? error : Object.assign(error, { cause });
}

/**
 * Opens `target` (the file `path` names) with `flags` plus `O_NONBLOCK` and checks on the open
 * descriptor that it is a regular file, so anything else is refused at once instead of blocking the
 * host: a FIFO opened for writing without a reader, or a socket, fails the open (`ENXIO`); a FIFO
 * opened for reading, a device or a directory opens and is refused by its `fstat` before anything
 * is read, truncated or written. `O_NONBLOCK` has no effect on a regular file's reads and writes,
 * so it is left set.
 * @throws RequestError invalid params (-32602) for a directory, FIFO, socket or device; other open
 *   errors (a missing file, `ELOOP` from `O_NOFOLLOW`, a permission) are thrown as they are.
 */
export async function openRegularFile(
  method: string,
  path: string,
  target: string,
  flags: number,
): Promise<{ file: FileHandle; stats: Stats }> {
  let file: FileHandle;
  try {
    file = await open(target, flags | constants.O_NONBLOCK, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EISDIR") throw notRegular(method, path, "a directory", error);
    if (code === "ENXIO" || code === "ENODEV" || code === "EOPNOTSUPP") {
      const stats = await stat(target).catch(() => undefined);
      throw notRegular(method, path, stats === undefined ? "not a regular file" : kindOf(stats), error);
    }
    throw error;
  }
  try {
    const stats = await file.stat();
    if (!stats.isFile()) throw notRegular(method, path, kindOf(stats));
    return { file, stats };
  } catch (error) {
    await file.close();
    throw error;
  }
}

/**
 * Reads the text of an open regular file for `fs/read_text_file`: all of it, or the `limit` lines
 * from the 1-based `line`, reading no more than {@link HOST_READ_LIMIT_BYTES} from the start.
 * @throws RequestError invalid params (-32602) when the whole file is asked for and it is larger
 *   than the limit, or when the lines asked for do not end within the limit.
 */
export async function readTextBounded(
  file: FileHandle,
  size: number,
  path: string,
  request: { line?: number | null; limit?: number | null },
): Promise<string> {
  const start = Math.max(0, (request.line ?? 1) - 1);
  // The lines to read from the start: all of them unless a limit is asked for.
  const wanted = request.limit == null ? Infinity : start + Math.max(0, request.limit);
  if (wanted === Infinity && size > HOST_READ_LIMIT_BYTES)
    throw RequestError.invalidParams(
      { path, size, limitBytes: HOST_READ_LIMIT_BYTES },
      `fs/read_text_file refused by the host: ${path} is ${size} bytes, more than the host reads (${HOST_READ_LIMIT_BYTES} bytes); read it by line and limit`,
    );
  const chunks: Buffer[] = [];
  let total = 0;
  let newlines = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, HOST_READ_LIMIT_BYTES + 1 - total));
    const { bytesRead } = await file.read(buffer, 0, buffer.length, total);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    chunks.push(chunk);
    total += bytesRead;
    for (let at = chunk.indexOf(10); at !== -1 && newlines < wanted; at = chunk.indexOf(10, at + 1)) newlines += 1;
    if (newlines >= wanted) break;
    if (total > HOST_READ_LIMIT_BYTES)
      throw RequestError.invalidParams(
        { path, limitBytes: HOST_READ_LIMIT_BYTES },
        wanted === Infinity
          ? `fs/read_text_file refused by the host: ${path} is more than ${HOST_READ_LIMIT_BYTES} bytes, the most the host reads; read it by line and limit`
          : `fs/read_text_file refused by the host: ${path}: line ${wanted} does not end within its first ${HOST_READ_LIMIT_BYTES} bytes, the most the host reads`,
      );
  }
  const content = Buffer.concat(chunks, total).toString("utf8");
  if (request.line == null && request.limit == null) return content;
  return content
    .split("\n")
    .slice(start, wanted === Infinity ? undefined : wanted)
    .join("\n");
}
