import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { UnpackRefusal, checkEntryPath, type UnpackBudget } from "./unpack-budget.js";

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/**
 * Unpacks the zip `file` into `dest` (an empty folder) with yauzl. Before any byte is written the
 * entry count is checked; each entry's path is checked ({@link checkEntryPath}); symbolic links and
 * other special files are refused; unpacked bytes are counted against the budget as they stream,
 * and yauzl checks each entry's real size against its declared size.
 *
 * @throws UnpackRefusal on a breach; yauzl's or the file system's error otherwise.
 */
export async function extractZip(file: string, dest: string, budget: UnpackBudget, signal: AbortSignal): Promise<void> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false });
  try {
    if (zip.entryCount > budget.limits.maxEntries) {
      throw new UnpackRefusal(`${zip.entryCount} entries, more than ${budget.limits.maxEntries} (limit maxEntries)`);
    }
    for await (const entry of zip.eachEntry()) {
      signal.throwIfAborted();
      budget.entry();
      const raw = entry.fileName as unknown as Buffer;
      const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, raw, entry.extraFields, false);
      const path = checkEntryPath(name);
      const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
      const isDir = name.endsWith("/") || mode === S_IFDIR;
      if (mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR) {
        throw new UnpackRefusal(`entry ${JSON.stringify(name)}: not a regular file or folder (links are refused)`);
      }
      const target = join(dest, path);
      if (isDir) {
        await mkdir(target, { recursive: true });
        continue;
      }
      if (entry.uncompressedSize > budget.limits.maxTotalBytes) {
        throw new UnpackRefusal(
          `entry ${JSON.stringify(name)} declares ${entry.uncompressedSize} bytes, more than ${budget.limits.maxTotalBytes} (limit maxTotalBytes)`,
        );
      }
      await mkdir(dirname(target), { recursive: true });
      const executable = ((entry.externalFileAttributes >>> 16) & 0o111) !== 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          try {
            budget.bytes(chunk.length);
            callback(null, chunk);
          } catch (error) {
            callback(error as Error);
          }
        },
      });
      await pipeline(
        await zip.openReadStreamPromise(entry),
        counter,
        createWriteStream(target, { flags: "wx", mode: executable ? 0o755 : 0o644 }),
        { signal },
      );
    }
  } finally {
    zip.close();
  }
}
