import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
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
