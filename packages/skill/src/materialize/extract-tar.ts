import { createReadStream, createWriteStream } from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { list, extract, type ReadEntry } from "tar";
import { UnpackRefusal, checkEntryPath, type UnpackBudget } from "./unpack-budget.js";

/** Entry types unpacked; everything else (links, devices, FIFOs) is refused. */
const REGULAR = new Set(["File", "OldFile", "ContiguousFile"]);

/**
 * Gunzips `file` to `out`, refusing to produce more than `maxBytes` (a gzip bomb stops there).
 * @throws UnpackRefusal when the limit is reached; zlib's error for a corrupt stream.
 */
export async function gunzipTo(file: string, out: string, maxBytes: number, signal: AbortSignal): Promise<void> {
  let produced = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      produced += chunk.length;
      if (produced > maxBytes) callback(new UnpackRefusal(`gzip stream unpacks to more than ${maxBytes} bytes (limit maxTotalBytes)`));
      else callback(null, chunk);
    },
  });
  await pipeline(createReadStream(file), createGunzip(), counter, createWriteStream(out, { flags: "wx" }), { signal });
}

/**
 * Unpacks the plain tar `file` into `dest` with node-tar, in two passes: the first lists every
 * header and checks entry count, paths ({@link checkEntryPath}), types (regular files and folders
 * only) and the total of declared sizes, which for tar are exactly the bytes written; only a clean
 * archive is then extracted, without owners, with strict warnings.
 *
 * @throws UnpackRefusal on a breach; node-tar's or the file system's error otherwise.
 */
export async function extractTar(file: string, dest: string, budget: UnpackBudget, signal: AbortSignal): Promise<void> {
  let refusal: unknown;
  const check = (entry: ReadEntry): void => {
    if (refusal) return;
    try {
      budget.entry();
      checkEntryPath(entry.path);
      if (entry.type !== "Directory" && !REGULAR.has(entry.type)) {
        throw new UnpackRefusal(`entry ${JSON.stringify(entry.path)}: ${entry.type} entries are refused (only files and folders)`);
      }
      if (entry.type !== "Directory") budget.bytes(entry.size ?? 0);
    } catch (error) {
      refusal = error;
    }
  };
  await list({ file, strict: true, onReadEntry: check });
  if (refusal) throw refusal;
  signal.throwIfAborted();
  await extract({
    file,
    cwd: dest,
    strict: true,
    preserveOwner: false,
    noMtime: true,
    filter: (_path, entry) => "type" in entry && (entry.type === "Directory" || REGULAR.has(entry.type as string)),
  });
}
