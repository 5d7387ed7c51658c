import { dirname, join } from "node:path";
import { checkSessionFolders, openRegularFile, writeSessionFile } from "@adaptor/driver/process";

/** Most bytes of a title file read: the CLI writes one small JSON object. */
const MAX_SIDECAR_BYTES = 64 * 1024;
const OP = "claude session title";

/**
 * Where Claude Code keeps the title a user gave a session (`/rename`) beside its transcript:
 * `<project folder>/<sessionId>/custom-title.json`, `{"customTitle":…,"by":"user","at":<ISO time>}`.
 * The CLI's session picker and the Claude Agent SDK's `getSessionInfo` read it when the
 * transcript's last 64 KiB hold no `custom-title` entry (a long session after the rename).
 */
export function titleSidecarPath(transcript: string, sessionId: string): string {
  return join(dirname(transcript), sessionId, "custom-title.json");
}

/**
 * The title of the session's title file, as the CLI reads it (a string `customTitle`), or
 * `undefined` when there is none, it is not a regular file of its own, or it is not such an object.
 */
export async function readSavedTitle(transcript: string, sessionId: string): Promise<string | undefined> {
  let opened;
  try {
    opened = await openRegularFile(titleSidecarPath(transcript, sessionId), "read", OP);
  } catch {
    return undefined; // none, or not a file: no saved title
  }
  const { handle, stat } = opened;
  try {
    if (stat.size > BigInt(MAX_SIDECAR_BYTES)) return undefined;
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(Number(stat.size)), 0, Number(stat.size), 0);
    const value = JSON.parse(buffer.subarray(0, bytesRead).toString("utf8")) as { customTitle?: unknown } | null;
    return typeof value?.customTitle === "string" ? value.customTitle : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Saves `title` as the session's title file the way Claude Code's `/rename` does (atomically:
 * a private temp file, then a rename), so the title outlives the transcript's growth past the
 * 64 KiB its readers scan from the end. The session's folder is made (mode 0700) if missing.
 * @param home - the CLI's config dir: no folder between it and the file may be a link.
 * @throws DriverError `INVALID` for a link in place of a folder on the way (also one swapped in
 * while the file is written: nothing lands outside the home); the I/O error of a failed write.
 */
export async function writeSavedTitle(home: string, transcript: string, sessionId: string, title: string): Promise<void> {
  const path = titleSidecarPath(transcript, sessionId);
  await checkSessionFolders(home, path, OP);
  const content = JSON.stringify({ customTitle: title, by: "user", at: new Date().toISOString() });
  await writeSessionFile(path, Buffer.from(content, "utf8"), [], { root: home, op: OP });
}
